#pragma once
// What the model computes for rotary position embeddings that does not depend on where it runs:
// the per-pair inverse frequencies, with the checkpoint's rope_scaling. Both backends (engine/cpu and
// kernels/) take them from here, so they rotate by the very same angles.
#include <vector>

#include "engine/model/model_config.h"

namespace folio {

// Per-pair inverse frequencies inv_freq[i] = theta^(-2i/head_dim), i < head_dim/2, with Llama-3.1
// "llama3" or "linear" rope_scaling applied as transformers does (in fp32).
std::vector<float> rope_inv_freq(const ModelConfig& config);

}  // namespace folio
