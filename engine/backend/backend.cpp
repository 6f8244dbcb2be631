#include "engine/backend/backend.h"

namespace folio {

Backend::Backend() = default;
Backend::~Backend() = default;

bool Backend::forward_and_sample(const ForwardBatch&, const std::vector<SamplingRow>&, std::vector<int32_t>&) {
    return false;
}

}  // namespace folio
