#pragma once
// The paged KV cache layout shared by every backend (CPU and CUDA use the same index arithmetic;
// only the element type differs: fp32 on the CPU, fp16 on CUDA).
//
// For each layer there is one K pool and one V pool, each [num_blocks, num_kv_heads, block_size,
// head_dim]: a block holds `block_size` consecutive token positions of one sequence for all KV heads.
// A sequence's token at position p lives in physical block block_table[p / block_size], slot
// p % block_size.
#include <cstddef>
#include <cstdint>

namespace folio {

struct KvLayout {
    int num_layers = 0;
    int num_kv_heads = 0;
    int head_dim = 0;
    int block_size = 16;
    int64_t num_blocks = 0;

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
