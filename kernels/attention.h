#pragma once
// Paged attention over the KV pools (KvLayout order, fp16 or FP8), for the decode tokens of a step
// (PagedAttention v1/v2: one query token per sequence, long contexts split into partitions that
// separate thread blocks handle and a second kernel merges) and for prefill chunks (several query
// tokens per sequence, causal, reading the cached prefix and the chunk's own K/V - written to the
// pool before - through the block table). Softmax in fp32 with the max subtracted; GQA: query head h
// reads KV head h / (num_heads / num_kv_heads). Supported head_dim: 8, 16, 32, 64, 80, 96, 128, 256.
// Sliding window (Mistral v0.1's `sliding_window`, as transformers masks it): with window W > 0 the
// query at position p attends to positions max(0, p - W + 1) .. p only; keys before are never read.
#include <cstdint>

#include "engine/kv/kv_dtype.h"
#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

bool attention_supports_head_dim(int head_dim);

// One layer's pools: fp16, or one FP8 code per element (value = code * scale, the layer's k_scale or
// v_scale read from device memory so that scales calibrated on the device need no host round trip).
// FP8 kernels read codes as fp16 "scaled codes" (common/fp8.cuh) and fold the scales into the scores
// (K) and the output (V).
struct PagedKv {
    const void* k_pool = nullptr;  // one layer's K pool
    const void* v_pool = nullptr;
    KvCacheDtype dtype = KvCacheDtype::Auto;  // Auto: fp16
    const float* k_scale = nullptr;  // FP8 only
    const float* v_scale = nullptr;
    int num_kv_heads = 0;
    int head_dim = 0;
    int block_size = 16;
    const int32_t* block_tables = nullptr;  // [num_seqs, max_blocks_per_seq] physical block ids
    int max_blocks_per_seq = 0;
};

struct DecodeAttention {
    const __half* q = nullptr;  // query rows; head h of row r at q + r * q_stride + h * head_dim
    int q_stride = 0;
    __half* out = nullptr;      // [rows, num_heads * head_dim] at out + r * out_stride
    int out_stride = 0;
    const int32_t* q_rows = nullptr;    // [num_seqs] row of each sequence's query token
    const int32_t* seq_lens = nullptr;  // [num_seqs] keys to attend (the cache incl. this token); 0: padding, writes zeros
    int num_seqs = 0;
    int num_heads = 0;
    float scale = 1.0f;
    int window = 0;            // sliding window in keys (0: none)
    int partition_size = 512;  // keys per thread block
    // Partitions the grid provides for: >= decode_attention_partitions(max seq_len, partition_size, window).
    int max_partitions = 1;
    // Workspace when max_partitions > 1 (decode_attention_workspace_floats() floats).
    float* workspace = nullptr;
};

// Partitions a sequence of `len` keys needs: its attended span (the last `window` keys when window > 0)
// split into runs of partition_size.
int decode_attention_partitions(int len, int partition_size, int window);
size_t decode_attention_workspace_floats(int num_seqs, int num_heads, int head_dim, int max_partitions);
void decode_attention(const DecodeAttention& a, const PagedKv& kv, cudaStream_t stream);

struct PrefillAttention {
    const __half* q = nullptr;  // as DecodeAttention
    int q_stride = 0;
    __half* out = nullptr;
    int out_stride = 0;
    int num_heads = 0;
    float scale = 1.0f;
    int window = 0;  // sliding window in keys (0: none)
    // Per sequence (index into the block tables): first query row, query tokens, tokens cached before.
    const int32_t* seq_q_row = nullptr;
    const int32_t* seq_num_q = nullptr;
    const int32_t* seq_context_before = nullptr;
    // Work items: query tiles of prefill_tile_rows(head_dim) tokens; tile i covers tokens
    // tile_q0[i] .. of sequence tile_seq[i].
    const int32_t* tile_seq = nullptr;
    const int32_t* tile_q0 = nullptr;
    int num_tiles = 0;
};

int prefill_tile_rows(int head_dim);
void prefill_attention(const PrefillAttention& a, const PagedKv& kv, cudaStream_t stream);

}  // namespace folio::cuda
