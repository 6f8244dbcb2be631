#pragma once
#include <cstdint>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

// Rotary embedding and KV-cache write for one step's tokens, fused.
//   qkv: [num_tokens, (num_heads + 2 * num_kv_heads) * head_dim] fp16, the fused Q|K|V projection.
//   Q is rotated in place (rotate_half RoPE, angle = float(position) * inv_freq[j] in fp32, as
//   cpu::rope); K is rotated and written with V into the pools (KvLayout order, fp16) at slot
//   slot_mapping[t] = block * block_size + offset; a negative slot (a padding row) writes nothing.
// inv_freq: [head_dim / 2] fp32 from rope_inv_freq (so llama3/linear scaling is included).
void rope_write_kv(__half* qkv, const int32_t* positions, const float* inv_freq, const int32_t* slot_mapping,
                   __half* k_pool, __half* v_pool, int num_tokens, int num_heads, int num_kv_heads, int head_dim,
                   int block_size, cudaStream_t stream);

// Copy-on-write: for each (src, dst) block pair, copies every layer's K and V block.
//   pools: device array of 2 * num_layers pool pointers (K of layer 0, V of layer 0, K of layer 1, ...);
//   pairs: device array of num_pairs (src, dst) int32 pairs; block_elems = num_kv_heads * block_size * head_dim.
void copy_kv_blocks(__half* const* pools, int num_pools, const int32_t* pairs, int num_pairs, int64_t block_elems,
                    cudaStream_t stream);

}  // namespace folio::cuda
