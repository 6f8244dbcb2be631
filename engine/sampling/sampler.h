#pragma once
// Turns one logits row into one token id: penalties, temperature, top-k, top-p, min-p, then a draw
// with a counter-based random number (seed, step), so the same seed gives the same text whatever
// else shares the batch, and a device sampler can draw the very same number.
#include <cstdint>
#include <vector>

#include "engine/backend/backend.h"

namespace folio {

// Uniform in [0, 1) from (seed, step): a pure function, identical on host and device.
double sampling_uniform(uint64_t seed, uint64_t step);

class Sampler {
public:
    // Modifies `logits` (vocab entries) in place. Greedy: argmax, lowest id on ties.
    int32_t sample(float* logits, int vocab, const SamplingRow& row);

private:
    std::vector<int32_t> candidates_;  // scratch reused between calls
    std::vector<float> probs_;
};

}  // namespace folio
