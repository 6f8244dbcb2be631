#pragma once
// What some families do to the fused q|k|v projection's output before RoPE, in place on
//   qkv: [num_tokens, (num_heads + 2 * num_kv_heads) * head_dim] fp16 (q heads, then k, then v).
#include <cstdint>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

// Qwen2's q/k/v biases: qkv[t, i] += bias[i], in fp32 then rounded to fp16 (bias: [width] fp32, the
// q, k and v biases side by side; zeros for a part without one).
void qkv_bias_add(__half* qkv, const float* bias, int num_tokens, int width, cudaStream_t stream);

// Qwen3's per-head RMSNorm of q and k (HF Qwen3RMSNorm over head_dim, in fp32): every q head row
// x -> x / sqrt(mean(x^2) + eps) * q_weight, every k head row likewise with k_weight; v untouched.
// q_weight, k_weight: [head_dim] fp32. head_dim at most 256.
void qk_head_norm(__half* qkv, const float* q_weight, const float* k_weight, int num_tokens, int num_heads, int num_kv_heads,
                  int head_dim, float eps, cudaStream_t stream);

}  // namespace folio::cuda
