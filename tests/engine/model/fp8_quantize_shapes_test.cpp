// FP8 at load on every dummy shape: one decoder layer of each at its real matrix sizes (up to
// llama-2-13b's 5120 x 13824), checked against the definition (fp8_quantize_check.h). Heavier than the
// other model tests (about 1.2 G weights generated and converted), so it is not in the sanitizer job.
#include <gtest/gtest.h>

#include "engine/model/dummy_model.h"
#include "tests/engine/model/fp8_quantize_check.h"

namespace folio {
namespace {

TEST(Fp8AtLoad, EveryDummyShapeQuantizesPerChannel) {
    for (const std::string& name : dummy_model_names()) test::check_dummy_shape(name + "-fp16");
}

}  // namespace
}  // namespace folio
