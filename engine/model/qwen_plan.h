#pragma once
#include "engine/model/layer_plan.h"
#include "engine/model/model_config.h"

namespace folio {

// Qwen2 / Qwen2.5 (transformers' Qwen2DecoderLayer): Llama's layer with biases on the q, k and v
// projections (o_proj has none).
ModelPlan plan_qwen2(const ModelConfig& config, const ModelWeights& weights);

// Qwen3 (Qwen3DecoderLayer): Llama's layer with each head of q and k RMS-normalised over head_dim
// (q_norm, k_norm) between the projection and RoPE; head_dim is explicit in its config and may differ
// from hidden_size / num_attention_heads.
ModelPlan plan_qwen3(const ModelConfig& config, const ModelWeights& weights);

}  // namespace folio
