#pragma once
// The paged KV cache layout shared by every backend (CPU and CUDA use the same index arithmetic;
// only the element type differs: fp32 on the CPU, fp16 on CUDA, or one byte of FP8 on both).
//
// For each layer there is one K pool and one V pool, each [num_blocks, num_kv_heads, block_size,
// head_dim]: a block holds `block_size` consecutive token positions of one sequence for all KV heads.
// A sequence's token at position p lives in physical block block_table[p / block_size], slot
// p % block_size.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "engine/kv/kv_dtype.h"

namespace folio {

// Sliding window (Mistral v0.1; W = attention_window(config), 0: none): a query at position `pos`
// attends keys [first_attended_key(pos, W), pos], as transformers masks it; a later query only
// moves that start forward.
inline int first_attended_key(int pos, int window) { return window > 0 && pos >= window ? pos - window + 1 : 0; }

// The first logical block a query at `pos`, or any later one, can read. The KV cache releases the
// blocks before it, and their block-table entries become kReleasedBlock, which no backend reads.
inline int first_live_block(int pos, int window, int block_size) { return first_attended_key(pos, window) / block_size; }
inline constexpr int32_t kReleasedBlock = -1;

// The most blocks a sequence of `tokens` tokens holds at once when it runs a token at a time: all of
// them, or under a window at most ceil((W - 1) / block_size) + 1 (a query's keys [p - W + 1, p]).
inline int64_t blocks_to_run(int64_t tokens, int window, int block_size) {
    const int64_t all = (tokens + block_size - 1) / block_size;
    return window > 0 ? std::min<int64_t>(all, (int64_t(window) - 1 + block_size - 1) / block_size + 1) : all;
}

struct KvLayout {
    int num_layers = 0;
    int num_kv_heads = 0;
    int head_dim = 0;
    int block_size = 16;
    int64_t num_blocks = 0;
    KvCacheDtype dtype = KvCacheDtype::Auto;

    // Bytes of one element: the backend's native size for Auto, 1 for FP8.
    size_t element_bytes(size_t native) const { return is_fp8(dtype) ? 1 : native; }
    // Elements of one block of one layer's K (or V) pool.
    int64_t block_elems() const { return int64_t(num_kv_heads) * block_size * head_dim; }
    // Offset of (block, kv_head, slot, dim 0) inside one layer's K (or V) pool.
    int64_t offset(int64_t block, int kv_head, int slot) const {
        return ((block * num_kv_heads + kv_head) * block_size + slot) * int64_t(head_dim);
    }
    // Bytes of one block over all layers, K and V, for a given element size.
    size_t bytes_per_block(size_t elem_size) const {
        return size_t(2) * size_t(num_layers) * size_t(block_elems()) * elem_size;
    }
};

}  // namespace folio
