// FP8 at load (--quantization fp8): the small dummy shapes (fp16 and bf16) convert as defined (see
// fp8_quantize_shapes_test.cpp for every shape), already quantized models and NaN weights are refused
// by name, and a checkpoint folder quantizes through load_model and reports it.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "engine/core/fp8.h"
#include "engine/core/half.h"
#include "engine/model/dummy_model.h"
#include "engine/model/fp8_quantize.h"
#include "engine/model/model.h"
#include "tests/engine/model/fp8_quantize_check.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

std::string error_of(Model& m) {
    try {
        quantize_fp8_at_load(m);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(Fp8AtLoad, SmallShapesQuantizePerChannel) {
    for (const char* name : {"tiny-fp16", "tiny-bf16", "tiny-fp32"}) test::check_dummy_shape(name);
}

TEST(Fp8AtLoad, QuantizedModelsAndBadWeightsAreRefused) {
    Model awq;
    awq.name = "dummy:tiny-awq";
    awq.config = dummy_config("tiny-awq");
    awq.config.num_layers = 1;
    awq.weights = dummy_weights(awq.config, 1);
    EXPECT_NE(error_of(awq).find("already quantized (AutoAWQ 4-bit)"), std::string::npos) << error_of(awq);
    awq.config.quant.pack_quantized = true;  // a compressed-tensors W4A16 checkpoint, repacked at load
    EXPECT_NE(error_of(awq).find("already quantized (compressed-tensors int4)"), std::string::npos) << error_of(awq);

    Model m;
    m.name = "dummy:tiny-fp32";
    m.config = dummy_config("tiny-fp32");
    m.config.num_layers = 2;
    m.weights = dummy_weights(m.config, 1);
    float* w = const_cast<float*>(static_cast<const float*>(m.weights.layers[1].up_proj.dense.data));
    w[5 * 256 + 3] = NAN;
    EXPECT_NE(error_of(m).find("model.layers.1.mlp.up_proj.weight holds NaN or infinite values (row 5)"), std::string::npos)
        << error_of(m);

    EXPECT_THROW(parse_load_quantization("int4"), Error);
    EXPECT_FALSE(parse_load_quantization("none"));
    EXPECT_TRUE(parse_load_quantization("fp8"));
    LoadOptions o;
    o.quantization = "fp8";
    try {
        load_model(test::fixture_path("models/stories260K-fp8"), o);
        ADD_FAILURE() << "an FP8 checkpoint was quantized again";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("already an FP8 checkpoint"), std::string::npos) << e.what();
    }
}

TEST(Fp8AtLoad, CheckpointFolderThroughLoadModel) {
    LoadOptions o;
    o.quantization = "fp8";
    const auto m = load_model(test::fixture_path("models/stories260K"), o);
    EXPECT_EQ(m->quantization_name(), "fp8-e4m3-channel (at load)");
    EXPECT_EQ(m->weights.layers[4].q_proj.kind, Linear::Kind::Fp8);
    EXPECT_GT(m->load_stats.seconds, 0.0);
    EXPECT_GT(m->load_stats.peak_rss_bytes, 0u);
    // fp32 q, o (64x64), k, v (32x64), gate, up, down (172x64) in 5 layers; then a byte per weight and
    // a float per row.
    const uint64_t weights = 5 * (2 * 64 * 64 + 2 * 32 * 64 + 3 * 172 * 64);
    EXPECT_EQ(m->load_stats.quantized_bytes_before, 4 * weights);
    EXPECT_EQ(m->load_stats.quantized_bytes_after, weights + 4 * 5 * (64 + 32 + 32 + 64 + 172 + 172 + 64));
}

}  // namespace
}  // namespace folio
