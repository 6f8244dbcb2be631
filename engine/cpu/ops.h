#pragma once
// The CPU backend's numerical building blocks, in fp32 with fp32 accumulation. They are the
// reference every CUDA kernel is tested against, so each one states its exact semantics. Shapes are
// row-major and given as [rows, cols].
#include <cstdint>
#include <vector>

#include "engine/kv/kv_layout.h"
#include "engine/model/model_config.h"
#include "engine/model/weights.h"

namespace folio {
class ThreadPool;
}

namespace folio::cpu {

// out[i, :] = x[i, :] / sqrt(mean(x[i, :]^2) + eps) * w     x, out: [n, dim]; w: [dim]
// (HF LlamaRMSNorm in fp32: the mean is accumulated in fp32 in index order.)
void rms_norm(const float* x, const float* w, float* out, int n, int dim, float eps);

// rotate_half RoPE in place on x: [n, num_heads, head_dim], token i at position positions[i], with
// inv_freq from rope_inv_freq (engine/model/rope.h):
//   x1 = x[..., :d/2], x2 = x[..., d/2:];  out = [x1*cos - x2*sin, x2*cos + x1*sin]
//   with angle = position * inv_freq[j] computed in fp32 (as float(pos) * inv_freq[j]).
void rope(float* x, int n, int num_heads, int head_dim, const int32_t* positions, const float* inv_freq);

// out[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + exp(-g)), exp within about 1 ulp (the kernels' exp16)
void silu_mul(const float* gate, const float* up, float* out, int64_t n);

// y[m, out] = x[m, in] . W^T for dense (F32/F16/BF16), FP8 (code * row scale in fp32) or AWQ
// weights, W dequantized as (q - z) * s in fp32. Each y element is a sum over `in` in a fixed order that depends only on
// `in` (never on m or on the row's position), so batching cannot change a result. (The CPU
// backend itself runs AWQ matrices through the integer kernel of kernels.h on repacked weights,
// with activations split into int8 parts (act_quant.h): within about 1e-6 of this, relatively.)
void linear(const Linear& w, const float* x, int m, float* y, ThreadPool& pool);

// Scaled dot-product attention for one sequence's query rows over its paged KV cache, causal:
// query row t (absolute position p = context_before + t) attends to positions 0..p, or with a
// sliding window W > 0 (Mistral v0.1's `sliding_window`, masked as transformers masks it) to
// positions max(0, p - W + 1)..p only.
//   q: [num_tokens, num_heads, head_dim]; out: same shape;
//   k_pool/v_pool: one layer's pools in KvLayout order; block_table: physical blocks of the sequence.
// GQA: query head h reads KV head h / (num_heads / num_kv_heads). Softmax in fp32 with the max
// subtracted; scale = 1/sqrt(head_dim). Keys are visited in position order.
void paged_attention(const float* q, float* out, int num_tokens, int context_before, int num_heads,
                     const KvLayout& layout, const float* k_pool, const float* v_pool,
                     const int32_t* block_table, float scale, int sliding_window = 0);

// One query row of one head over positions [first_key, num_keys) of a sequence (the body of
// paged_attention): scores in position order, max-subtracted softmax, weighted sum of values.
// Dot products and the value sum use fused multiply-adds over head_dim in 16 lanes (the backend's
// kernel, kernels.h attention_row, so both agree bit for bit). `scores` is scratch.
void attention_head(const float* q, float* out, int num_keys, int kv_head, const KvLayout& layout, const float* k_pool,
                    const float* v_pool, const int32_t* block_table, float scale, std::vector<float>& scores, int first_key = 0);

// Writes K and V rows ([num_tokens, num_kv_heads, head_dim]) of positions context_before.. into the
// pools through the block table.
void write_kv(const float* k, const float* v, int num_tokens, int context_before, const KvLayout& layout,
              float* k_pool, float* v_pool, const int32_t* block_table);

}  // namespace folio::cpu
