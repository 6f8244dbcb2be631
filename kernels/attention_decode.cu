// Decode attention over paged KV (PagedAttention v2): grid (KV head x head chunk, sequence,
// partition). A block takes one partition of one sequence's attended keys (all of them, or the last
// `window` ones with a sliding window) for up to 8 query heads of one KV group, so each K/V byte is
// read once for the whole group. Scores go to shared memory, softmax per head, then P.V with each
// thread owning 8 dimensions of a value row; when a sequence spans several partitions each writes
// (max, sum, unnormalised output) and a second kernel merges them.
#include "kernels/attention.h"

#include "kernels/attention_kv.cuh"
#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"

namespace folio::cuda {

namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxHeads = 8;  // query heads per block

constexpr int lanes_per_key(int chunks) {
    int lanes = 1;
    while (lanes * 2 <= 32 && chunks % (lanes * 2) == 0 && chunks / (lanes * 2) >= 4) lanes *= 2;
    return lanes;
}

template <int D>
struct Shape {
    static constexpr int kChunks = D / 8;                      // 16-byte pieces of a K/V row
    static constexpr int kLanesPerKey = lanes_per_key(kChunks);
    static constexpr int kChunksPerLane = kChunks / kLanesPerKey;
    static constexpr int kKeysPerWarp = 32 / kLanesPerKey;
    static constexpr int kRowGroups = kThreads / kChunks;      // value rows processed at once
};

// First key a decode query at position len - 1 attends to.
__host__ __device__ inline int first_key(int len, int window) { return window > 0 && len > window ? len - window : 0; }

__host__ __device__ inline int num_partitions(int len, int partition_size, int window) {
    return (len - first_key(len, window) + partition_size - 1) / partition_size;
}

__host__ __device__ inline size_t decode_smem_floats(int head_dim, int partition_size) {
    const size_t row_groups = size_t(kThreads / (head_dim / 8));
    const size_t logits = size_t(kMaxHeads) * size_t(partition_size);
    const size_t reduce = row_groups * kMaxHeads * size_t(head_dim);
    return size_t(kMaxHeads) * head_dim + (logits > reduce ? logits : reduce) + 2 * kMaxHeads;
}

template <int D, bool kFp8>
__global__ void __launch_bounds__(kThreads) decode_kernel(DecodeAttention a, PagedKv kv) {
    using S = Shape<D>;
    const int group = a.num_heads / kv.num_kv_heads;
    const int chunks_per_group = (group + kMaxHeads - 1) / kMaxHeads;
    const int kvh = int(blockIdx.x) / chunks_per_group;
    const int h0 = kvh * group + (int(blockIdx.x) % chunks_per_group) * kMaxHeads;
    const int G = min(kMaxHeads, kvh * group + group - h0);
    const int s = int(blockIdx.y), p = int(blockIdx.z);
    const int len = a.seq_lens[s];
    const int P = a.partition_size;
    const int num_parts = num_partitions(len, P, a.window);
    const int tid = int(threadIdx.x);
    __half* out_row = a.out + size_t(a.q_rows[s]) * a.out_stride + size_t(h0) * D;
    if (len <= 0) {  // a padding row of a captured batch
        if (p == 0)
            for (int i = tid; i < G * D; i += kThreads) out_row[i] = __float2half_rn(0.0f);
        return;
    }
    if (num_parts > a.max_partitions) {  // the host sized the grid too small: make it loud, never silent
        if (p == 0)
            for (int i = tid; i < G * D; i += kThreads) out_row[i] = __float2half_rn(NAN);
        return;
    }
    if (p >= num_parts) return;
    const int start = first_key(len, a.window) + p * P;  // keys before the window are never read
    const int n = min(P, len - start);

    float* q_s = dynamic_smem<float>();        // [kMaxHeads][D], pre-scaled
    float* head_max = q_s + kMaxHeads * D;     // [kMaxHeads]
    float* head_sum = head_max + kMaxHeads;    // [kMaxHeads]
    float* work = head_sum + kMaxHeads;        // logits [kMaxHeads][P], later partial outputs

    const bool e5m2 = kv_e5m2(kv);
    const float k_factor = a.scale * kv_factor<kFp8>(kv.k_scale, e5m2);  // FP8: the K scale folds into q
    const float v_factor = kv_factor<kFp8>(kv.v_scale, e5m2);
    const __half* q_row = a.q + size_t(a.q_rows[s]) * a.q_stride + size_t(h0) * D;
    for (int i = tid; i < G * D; i += kThreads) q_s[i] = __half2float(q_row[i]) * k_factor;
    __syncthreads();

    const int32_t* table = kv.block_tables + size_t(s) * kv.max_blocks_per_seq;
    const int bs = kv.block_size, kvheads = kv.num_kv_heads;
    auto row_off = [&](int pos) { return ((size_t(table[pos / bs]) * kvheads + kvh) * bs + pos % bs) * D; };

    // Scores: kLanesPerKey lanes per key, each owning kChunksPerLane 16-byte pieces.
    {
        const int warp = tid / 32, lane = tid % 32;
        const int sub = lane % S::kLanesPerKey, key_in_warp = lane / S::kLanesPerKey;
        for (int base = 0; base < n; base += kWarps * S::kKeysPerWarp) {
            const int j = base + warp * S::kKeysPerWarp + key_in_warp;
            float k[S::kChunksPerLane][8];
            if (j < n) {
                const size_t kp = row_off(start + j);
                FOLIO_UNROLL
                for (int c = 0; c < S::kChunksPerLane; ++c) load_kv8<kFp8>(kv.k_pool, kp + (c * S::kLanesPerKey + sub) * 8, e5m2, k[c]);
            } else {
                FOLIO_UNROLL
                for (int c = 0; c < S::kChunksPerLane; ++c)
                    FOLIO_UNROLL
                    for (int e = 0; e < 8; ++e) k[c][e] = 0.0f;
            }
            FOLIO_UNROLL
            for (int g = 0; g < kMaxHeads; ++g) {
                if (g >= G) break;  // uniform across the block
                float dot = 0.0f;
                FOLIO_UNROLL
                for (int c = 0; c < S::kChunksPerLane; ++c) {
                    const float* qp = q_s + g * D + (c * S::kLanesPerKey + sub) * 8;
                    FOLIO_UNROLL
                    for (int e = 0; e < 8; ++e) dot += qp[e] * k[c][e];
                }
                FOLIO_UNROLL
                for (int o = S::kLanesPerKey / 2; o > 0; o >>= 1) dot += __shfl_xor_sync(kFullMask, dot, o);
                if (j < n && sub == 0) work[g * P + j] = dot;
            }
        }
    }
    __syncthreads();

    // Softmax per head: warp w takes heads w, w + 4.
    {
        const int warp = tid / 32, lane = tid % 32;
        for (int g = warp; g < G; g += kWarps) {
            float* l = work + g * P;
            float m = -INFINITY;
            for (int j = lane; j < n; j += 32) m = fmaxf(m, l[j]);
            m = warp_max(m);
            float sum = 0.0f;
            for (int j = lane; j < n; j += 32) {
                const float e = expf(l[j] - m);
                l[j] = e;
                sum += e;
            }
            sum = warp_sum(sum);
            if (lane == 0) {
                head_max[g] = m;
                head_sum[g] = sum;
            }
        }
    }
    __syncthreads();

    // P.V: thread (row group rg, chunk cv) accumulates 8 dimensions for every head.
    const int cv = tid % S::kChunks, rg = tid / S::kChunks;
    float acc[kMaxHeads][8];
    FOLIO_UNROLL
    for (int g = 0; g < kMaxHeads; ++g)
        FOLIO_UNROLL
        for (int e = 0; e < 8; ++e) acc[g][e] = 0.0f;
    if (rg < S::kRowGroups) {
        for (int j = rg; j < n; j += S::kRowGroups) {
            float v[8];
            load_kv8<kFp8>(kv.v_pool, row_off(start + j) + cv * 8, e5m2, v);
            FOLIO_UNROLL
            for (int g = 0; g < kMaxHeads; ++g) {
                if (g < G) {
                    const float w = work[g * P + j];
                    FOLIO_UNROLL
                    for (int e = 0; e < 8; ++e) acc[g][e] += w * v[e];
                }
            }
        }
    }
    __syncthreads();  // the logits are dead: reuse their space for the row groups' partial outputs
    if (rg < S::kRowGroups) {
        FOLIO_UNROLL
        for (int g = 0; g < kMaxHeads; ++g)
            if (g < G)
                FOLIO_UNROLL
                for (int e = 0; e < 8; ++e) work[(rg * kMaxHeads + g) * D + cv * 8 + e] = acc[g][e];
    }
    __syncthreads();
    const size_t part_stride = size_t(a.max_partitions);
    for (int i = tid; i < G * D; i += kThreads) {
        const int g = i / D, d = i % D;
        float o = 0.0f;
        for (int r = 0; r < S::kRowGroups; ++r) o += work[(r * kMaxHeads + g) * D + d];
        if (num_parts == 1) {
            out_row[i] = __float2half_rn(o / head_sum[g] * v_factor);
        } else {
            const size_t sh = size_t(s) * a.num_heads + size_t(h0 + g);
            float* part_out = a.workspace + 2 * size_t(a.num_seqs) * a.num_heads * part_stride;
            part_out[(sh * part_stride + size_t(p)) * D + d] = o;
            if (d == 0) {
                a.workspace[sh * part_stride + size_t(p)] = head_max[g];
                a.workspace[size_t(a.num_seqs) * a.num_heads * part_stride + sh * part_stride + size_t(p)] = head_sum[g];
            }
        }
    }
}

// Merges the partitions of sequences that had more than one: grid (head, sequence). v_factor: the FP8
// V scale (1 for fp16), applied once to the merged output.
template <bool kFp8>
__global__ void __launch_bounds__(kThreads) decode_reduce_kernel(DecodeAttention a, PagedKv kv, int head_dim) {
    const int h = int(blockIdx.x), s = int(blockIdx.y);
    const int len = a.seq_lens[s];
    const int num_parts = num_partitions(len, a.partition_size, a.window);
    if (num_parts <= 1 || num_parts > a.max_partitions) return;  // done by the first kernel
    const size_t part_stride = size_t(a.max_partitions);
    const size_t sh = size_t(s) * a.num_heads + size_t(h);
    const float* maxes = a.workspace + sh * part_stride;
    const float* sums = a.workspace + size_t(a.num_seqs) * a.num_heads * part_stride + sh * part_stride;
    const float* part_out = a.workspace + 2 * size_t(a.num_seqs) * a.num_heads * part_stride + sh * part_stride * head_dim;
    float m = -INFINITY;
    for (int p = 0; p < num_parts; ++p) m = fmaxf(m, maxes[p]);
    float total = 0.0f;
    for (int p = 0; p < num_parts; ++p) total += sums[p] * expf(maxes[p] - m);
    const float v_factor = kv_factor<kFp8>(kv.v_scale, kv_e5m2(kv));
    __half* out = a.out + size_t(a.q_rows[s]) * a.out_stride + size_t(h) * head_dim;
    for (int d = int(threadIdx.x); d < head_dim; d += kThreads) {
        float o = 0.0f;
        for (int p = 0; p < num_parts; ++p) o += part_out[size_t(p) * head_dim + d] * expf(maxes[p] - m);
        out[d] = __float2half_rn(o / total * v_factor);
    }
}

template <int D, bool kFp8>
void launch_decode_as(const DecodeAttention& a, const PagedKv& kv, cudaStream_t stream) {
    const int group = a.num_heads / kv.num_kv_heads;
    const int chunks = (group + kMaxHeads - 1) / kMaxHeads;
    const size_t smem = decode_smem_floats(D, a.partition_size) * sizeof(float);
    if (smem > 48 * 1024) allow_dynamic_smem(decode_kernel<D, kFp8>, smem);
    launch(decode_kernel<D, kFp8>, dim3(unsigned(kv.num_kv_heads * chunks), unsigned(a.num_seqs), unsigned(a.max_partitions)),
           dim3(kThreads), smem, stream, a, kv);
    if (a.max_partitions > 1)
        launch(decode_reduce_kernel<kFp8>, dim3(unsigned(a.num_heads), unsigned(a.num_seqs)), dim3(kThreads), 0, stream, a, kv, D);
}

template <int D>
void launch_decode(const DecodeAttention& a, const PagedKv& kv, cudaStream_t stream) {
    if (is_fp8(kv.dtype)) launch_decode_as<D, true>(a, kv, stream);
    else launch_decode_as<D, false>(a, kv, stream);
}

}  // namespace

bool attention_supports_head_dim(int d) {
    return d == 8 || d == 16 || d == 32 || d == 64 || d == 80 || d == 96 || d == 128 || d == 256;
}

int decode_attention_partitions(int len, int partition_size, int window) {
    return len <= 0 ? 0 : num_partitions(len, partition_size, window);
}

size_t decode_attention_workspace_floats(int num_seqs, int num_heads, int head_dim, int max_partitions) {
    if (max_partitions <= 1) return 0;
    return size_t(num_seqs) * num_heads * max_partitions * (2 + size_t(head_dim));
}

void decode_attention(const DecodeAttention& a, const PagedKv& kv, cudaStream_t stream) {
    if (a.num_seqs <= 0) return;
    if (a.num_heads % kv.num_kv_heads != 0) throw Error("decode_attention: num_heads must be a multiple of num_kv_heads");
    if (a.partition_size <= 0 || decode_smem_floats(kv.head_dim, a.partition_size) * sizeof(float) > 96 * 1024)
        throw Error("decode_attention: partition size " + std::to_string(a.partition_size) + " does not fit shared memory");
    if (a.max_partitions > 1 && !a.workspace) throw Error("decode_attention: several partitions need a workspace");
    if (is_fp8(kv.dtype) && (!kv.k_scale || !kv.v_scale)) throw Error("decode_attention: an FP8 KV cache needs its scales");
    switch (kv.head_dim) {
        case 8: return launch_decode<8>(a, kv, stream);
        case 16: return launch_decode<16>(a, kv, stream);
        case 32: return launch_decode<32>(a, kv, stream);
        case 64: return launch_decode<64>(a, kv, stream);
        case 80: return launch_decode<80>(a, kv, stream);
        case 96: return launch_decode<96>(a, kv, stream);
        case 128: return launch_decode<128>(a, kv, stream);
        case 256: return launch_decode<256>(a, kv, stream);
    }
    throw Error("decode_attention: head_dim " + std::to_string(kv.head_dim) + " is not supported");
}

}  // namespace folio::cuda
