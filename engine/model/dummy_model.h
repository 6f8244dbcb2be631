#pragma once
// dummy:NAME models: random weights (seeded, reproducible) at the shapes of real checkpoints, for
// benchmarks and demos. NAME is a base shape with an optional storage suffix:
//   tiny, llama-0.8b, llama-2-7b, llama-2-13b, mistral-7b, llama-3-8b, llama-3.1-8b, qwen2.5-7b, qwen3-8b
//   [-fp16 (default) | -bf16 | -fp32 | -awq (group 128) | -awq-g64 | -awq-g32]
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/load_progress.h"
#include "engine/model/model_config.h"
#include "engine/model/weights.h"

namespace folio {

// The config of dummy:NAME (NAME without the "dummy:" prefix). Throws folio::Error listing the known
// names when NAME is unknown.
ModelConfig dummy_config(const std::string& name);

// Random weights for a config: uniform with the std of HF's initializer (0.02), norms at 1; AWQ
// linears get random nibbles, zeros near 8 and fp16 scales giving the same std. Deterministic in
// (config, seed), whatever the number of threads.
ModelWeights dummy_weights(const ModelConfig& config, uint64_t seed, const LoadProgressFn& progress = {});

std::vector<std::string> dummy_model_names();  // the base shapes

}  // namespace folio
