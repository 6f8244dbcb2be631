#pragma once
// Where a step's tokens are sampled. A backend that samples on its device does it in
// forward_and_sample (CUDA); otherwise (the CPU backend, or a CUDA step it declines) the engine runs
// forward() and samples the logits on the host. The abstract Backend never holds a sampler.
#include <cstdint>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/sampling/sampler.h"

namespace folio {

// One token per logits row of `batch` into `sampled` (rows[i] for the i-th). `logits` is scratch for
// the host path. Throws what the backend or the sampler throws.
void sample_step(Backend& backend, Sampler& sampler, const ForwardBatch& batch, const std::vector<SamplingRow>& rows,
                 std::vector<float>& logits, std::vector<int32_t>& sampled);

}  // namespace folio
