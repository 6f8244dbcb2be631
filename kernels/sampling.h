#pragma once
// Logits processing and sampling on the device, following engine/sampling/sampler.h step by step
// (penalties, greedy, temperature, top-k, top-p, min-p, then an inverse-CDF draw with the very same
// uniform number, sampling_uniform(seed, step)), one thread block per row. Only the sampled ids
// leave the device. Cut-offs are found by radix selection over the (logit desc, id asc) order, with
// probability mass summed in 64-bit fixed point so that results do not depend on thread timing.
#include <cstdint>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

// One row's settings, as the host packs them (plain data, copied to the device each step).
struct DeviceSamplingParams {
    float temperature = 1.0f;  // < 1e-5: greedy
    float top_p = 1.0f;
    float min_p = 0.0f;
    float repetition = 1.0f;
    float presence = 0.0f;
    float frequency = 0.0f;
    int32_t top_k = 0;
    // Penalty ids in the step's id list: repetition over [rep_begin, rep_end) (distinct ids of prompt
    // and output), presence/frequency over [pf_begin, pf_end) (distinct output ids, with counts).
    int32_t rep_begin = 0, rep_end = 0, pf_begin = 0, pf_end = 0;
    int32_t pad = 0;
    uint64_t seed = 0;
    uint64_t step = 0;
};

// logits[r, i] = -inf for every i in [from, vocab) of rows [0, rows): the embedding's padding rows
// past the tokenizer's last id (ModelPlan::sampled_vocab), which the CPU backend masks the same way.
void mask_padded_vocab(float* logits, int vocab, int rows, int from, cudaStream_t stream);

// Applies repetition/presence/frequency penalties in place (rows without ids are untouched).
void apply_penalties(float* logits, int vocab, int rows, const DeviceSamplingParams* params, const int32_t* ids,
                     const int32_t* counts, cudaStream_t stream);

// out[r] = the sampled id of row r, or -1 when no logit of the row is usable (all NaN or -inf).
// The logits are modified (scaled by the temperature).
void sample_tokens(float* logits, int vocab, int rows, const DeviceSamplingParams* params, int32_t* out, cudaStream_t stream);

}  // namespace folio::cuda
