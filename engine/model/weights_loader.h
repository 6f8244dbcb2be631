#pragma once
#include <functional>

#include "engine/core/load_progress.h"
#include "engine/model/checkpoint.h"
#include "engine/model/model_config.h"
#include "engine/model/weights.h"

namespace folio {

// Views of every tensor a Llama-family model needs, each checked for presence, dtype and the shape
// config.json implies. AWQ linears (per QuantConfig and modules_to_not_convert) stay packed.
// Throws folio::Error naming the tensor and file at fault.
ModelWeights load_weights(const Checkpoint& checkpoint, const ModelConfig& config,
                          const LoadProgressFn& progress = {});

// Bytes a decode step reads once: every linear (packed size for AWQ), the norms and lm_head.
uint64_t weight_bytes_per_token(const ModelWeights& weights);

// Bytes a Linear occupies as stored.
uint64_t linear_bytes(const Linear& l);

}  // namespace folio
