#pragma once
// Where a step's tokens are sampled. A backend that samples on its device does it in
// forward_and_sample (CUDA); otherwise (the CPU backend, or a CUDA step it declines) the engine runs
// forward() and samples the logits on the host. The abstract Backend never holds a sampler.
// Two things only the host sampler does, so a step that needs them runs forward() and samples here
// whatever the backend: logprobs (a row whose params ask for them), and several rows sampled from one
// logits row (the n replies of one prompt, each drawing its first token from the prompt's logits).
#include <cstdint>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/sampling/sampler.h"

namespace folio {

struct StepSampling {
    std::vector<SamplingRow> rows;
    // Empty: rows[i] samples the batch's i-th logits row. Otherwise rows[i] samples logits row
    // logits_row[i] (several rows may share one).
    std::vector<int> logits_row;
};

// One token per row into `sampled`, and into `logprobs` (one entry per row) the logprobs of the rows
// that ask for them. `logits` and `scratch` are host buffers kept between steps. Throws what the
// backend or the sampler throws.
void sample_step(Backend& backend, Sampler& sampler, const ForwardBatch& batch, const StepSampling& sampling,
                 std::vector<float>& logits, std::vector<float>& scratch, std::vector<int32_t>& sampled,
                 std::vector<TokenLogprobs>& logprobs);

}  // namespace folio
