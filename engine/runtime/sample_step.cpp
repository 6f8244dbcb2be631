#include "engine/runtime/sample_step.h"

namespace folio {

void sample_step(Backend& backend, Sampler& sampler, const ForwardBatch& batch, const std::vector<SamplingRow>& rows,
                 std::vector<float>& logits, std::vector<int32_t>& sampled) {
    if (backend.forward_and_sample(batch, rows, sampled)) return;
    backend.forward(batch, logits);
    sampler.sample_rows(logits, rows, sampled);
}

}  // namespace folio
