#pragma once
#include <cstdint>

#include "engine/kv/kv_dtype.h"
#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

// One layer's pools as rope_write_kv writes them.
struct KvWriteTarget {
    void* k_pool = nullptr;  // fp16, or one FP8 code per element
    void* v_pool = nullptr;
    KvCacheDtype dtype = KvCacheDtype::Auto;  // Auto: fp16
    const float* k_scale = nullptr;  // FP8: device scalars; stored = fp8(x / scale) (engine/core/fp8.h)
    const float* v_scale = nullptr;
    // Calibration (vLLM's calculate_kv_scales): when set, nothing is written and Q is left as it is;
    // the largest |K| (rotated) and |V| of the step go to amax[0] and amax[1] (zeroed before).
    float* amax = nullptr;
};

// Rotary embedding and KV-cache write for one step's tokens, fused.
//   qkv: [num_tokens, (num_heads + 2 * num_kv_heads) * head_dim] fp16, the fused Q|K|V projection.
//   Q is rotated in place (rotate_half RoPE, angle = float(position) * inv_freq[j] in fp32, as
//   cpu::rope); K is rotated and written with V into the pools (KvLayout order) at slot
//   slot_mapping[t] = block * block_size + offset; a negative slot (a padding row) writes nothing.
//   FP8 pools get fp8(k / k_scale) of the fp32 rotation and fp8(v / v_scale).
// inv_freq: [head_dim / 2] fp32 from rope_inv_freq (so llama3/linear scaling is included).
void rope_write_kv(__half* qkv, const int32_t* positions, const float* inv_freq, const int32_t* slot_mapping,
                   const KvWriteTarget& kv, int num_tokens, int num_heads, int num_kv_heads, int head_dim, int block_size,
                   cudaStream_t stream);

// The end of a calibration: k_scale = amax[0] / 200 and v_scale = amax[1] / 100 (vLLM's constants,
// engine/kv/kv_dtype.h) where the maximum is positive; otherwise the scale stays.
void kv_scales_from_amax(const float* amax, float* k_scale, float* v_scale, cudaStream_t stream);

// Copy-on-write: for each (src, dst) block pair, copies every layer's K and V block.
//   pools: device array of 2 * num_layers pool pointers (K of layer 0, V of layer 0, K of layer 1, ...);
//   pairs: device array of num_pairs (src, dst) int32 pairs; block_bytes: one block of one pool
//   (num_kv_heads * block_size * head_dim elements), a multiple of 8.
void copy_kv_blocks(void* const* pools, int num_pools, const int32_t* pairs, int num_pairs, int64_t block_bytes,
                    cudaStream_t stream);

}  // namespace folio::cuda
