#pragma once
// What the sampler needs for one logits row: plain data, so that a backend that samples on its own
// device (CUDA) can take the same rows without depending on the host sampler.
#include <cstdint>

#include "engine/sampling/sampling_params.h"

namespace folio {

// The history spans point into the engine's sequences and stay valid for the call.
struct SamplingRow {
    const SamplingParams* params = nullptr;
    const int32_t* prompt_ids = nullptr;   // for the repetition penalty
    int num_prompt_ids = 0;
    const int32_t* output_ids = nullptr;   // generated so far (repetition/presence/frequency)
    int num_output_ids = 0;
    uint64_t seed = 0;       // the request's seed
    uint64_t step = 0;       // index of the token being sampled; with seed it picks the random number
};

}  // namespace folio
