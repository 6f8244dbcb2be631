#pragma once
#include "engine/model/layer_plan.h"
#include "engine/model/model_config.h"

namespace folio {

// Llama and Mistral (transformers' LlamaDecoderLayer; Mistral adds the sliding window): per layer
//   RmsNorm -> q/k/v projection -> RoPE -> attention -> o_proj -> residual add
//   -> RmsNorm -> gated SiLU MLP -> residual add
ModelPlan plan_llama(const ModelConfig& config, const ModelWeights& weights);

}  // namespace folio
