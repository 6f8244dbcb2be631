// Prefill attention over paged KV on CUDA cores, for the head dims the tensor-core kernel
// (attention_prefill_mma.cu) does not take: grid (query tile, head). A block holds a tile of query rows of one
// sequence for one head and walks the keys it may see in steps of 16 (flash-attention style online
// softmax, fp32 on CUDA cores), reading every key - cached prefix and the chunk's own, already
// written to the pool - through the block table. Causal: the query at position p sees keys 0..p
// (p - window + 1 .. p with a sliding window).
#include "kernels/attention.h"
#include "kernels/attention_kv.cuh"
#include "kernels/attention_prefill_mma.h"

#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"

namespace folio::cuda {

namespace {

constexpr int kThreads = 128;
constexpr int kKeysPerTile = 16;

template <int D>
struct PrefillShape {
    static constexpr int kRows = D <= 128 ? 32 : 16;       // query rows per block
    static constexpr int kThreadsPerRow = kThreads / kRows;  // 4 or 8: they split keys and dimensions
    static constexpr int kKeysPerThread = kKeysPerTile / kThreadsPerRow;
    static constexpr int kDimsPerThread = D / kThreadsPerRow;
    static constexpr int kQStride = D + 1;  // padded rows: no bank conflicts between rows
    static constexpr int kKStride = D + 1;
    static constexpr size_t kSmemFloats =
        size_t(kRows) * kQStride + size_t(kKeysPerTile) * kKStride + size_t(kKeysPerTile) * D + size_t(kRows) * (kKeysPerTile + 1);
};

template <int D, bool kFp8>
__global__ void __launch_bounds__(kThreads, 1) prefill_kernel(PrefillAttention a, PagedKv kv) {
    using S = PrefillShape<D>;
    const int tile = int(blockIdx.x), h = int(blockIdx.y);
    const int s = a.tile_seq[tile];
    const int q0 = a.tile_q0[tile];
    const int num_q = a.seq_num_q[s];
    const int before = a.seq_context_before[s];
    const int rows = min(S::kRows, num_q - q0);
    const int kvh = h / (a.num_heads / kv.num_kv_heads);
    const int tid = int(threadIdx.x);

    float* q_s = dynamic_smem<float>();                 // [kRows][kQStride], pre-scaled
    float* k_s = q_s + S::kRows * S::kQStride;          // [16][kKStride]
    float* v_s = k_s + kKeysPerTile * S::kKStride;      // [16][D]
    float* p_s = v_s + kKeysPerTile * D;                // [kRows][17]

    const int row0 = a.seq_q_row[s] + q0;
    const bool e5m2 = kv_e5m2(kv);
    const float k_factor = a.scale * kv_factor<kFp8>(kv.k_scale, e5m2);  // FP8: the K scale folds into q
    const float v_factor = kv_factor<kFp8>(kv.v_scale, e5m2);
    for (int i = tid; i < S::kRows * D; i += kThreads) {
        const int r = i / D, d = i % D;
        q_s[r * S::kQStride + d] =
            r < rows ? __half2float(a.q[size_t(row0 + r) * a.q_stride + size_t(h) * D + d]) * k_factor : 0.0f;
    }

    // Thread (row r, part t): scores of keys t*kKeysPerThread.., output dims t, t + kThreadsPerRow, ...
    const int r = tid / S::kThreadsPerRow, t = tid % S::kThreadsPerRow;
    const int my_pos = before + q0 + r;  // absolute position of this query row
    float m = -INFINITY, l = 0.0f;
    float o[S::kDimsPerThread];
    FOLIO_UNROLL
    for (int j = 0; j < S::kDimsPerThread; ++j) o[j] = 0.0f;

    const int32_t* table = kv.block_tables + size_t(s) * kv.max_blocks_per_seq;
    const int bs = kv.block_size;
    const int last_key = before + q0 + rows - 1;  // the tile's last row sees the most keys
    // With a sliding window the first row's window starts first; earlier keys are never read.
    const int first_key = a.window > 0 ? max(0, before + q0 - a.window + 1) : 0;
    const int oldest = a.window > 0 ? my_pos - a.window + 1 : 0;  // this row's first visible key
    for (int k0 = first_key; k0 <= last_key; k0 += kKeysPerTile) {
        __syncthreads();  // the previous tile's K/V/P are no longer read
        for (int c = tid; c < kKeysPerTile * (D / 8); c += kThreads) {
            const int key = c / (D / 8), piece = c % (D / 8);
            const int pos = k0 + key;
            float kf[8], vf[8];
            if (pos <= last_key) {
                const size_t off = ((size_t(table[pos / bs]) * kv.num_kv_heads + kvh) * bs + pos % bs) * D + piece * 8;
                load_kv8<kFp8>(kv.k_pool, off, e5m2, kf);
                load_kv8<kFp8>(kv.v_pool, off, e5m2, vf);
            } else {
                FOLIO_UNROLL
                for (int e = 0; e < 8; ++e) kf[e] = vf[e] = 0.0f;
            }
            FOLIO_UNROLL
            for (int e = 0; e < 8; ++e) {
                k_s[key * S::kKStride + piece * 8 + e] = kf[e];
                v_s[key * D + piece * 8 + e] = vf[e];
            }
        }
        __syncthreads();

        float sc[S::kKeysPerThread];
        float tile_max = -INFINITY;
        FOLIO_UNROLL
        for (int j = 0; j < S::kKeysPerThread; ++j) {
            const int key = t * S::kKeysPerThread + j;
            float dot = 0.0f;
            for (int d = 0; d < D; ++d) dot += q_s[r * S::kQStride + d] * k_s[key * S::kKStride + d];
            sc[j] = (k0 + key <= my_pos && k0 + key >= oldest) ? dot : -INFINITY;
            tile_max = fmaxf(tile_max, sc[j]);
        }
        FOLIO_UNROLL
        for (int off = S::kThreadsPerRow / 2; off > 0; off >>= 1) tile_max = fmaxf(tile_max, __shfl_xor_sync(kFullMask, tile_max, off));
        const float m_new = fmaxf(m, tile_max);
        // A row with no visible key in this tile keeps m = -inf; guard the -inf - -inf.
        const float corr = m_new == -INFINITY ? 1.0f : expf(m - m_new);
        float psum = 0.0f;
        FOLIO_UNROLL
        for (int j = 0; j < S::kKeysPerThread; ++j) {
            const float pj = sc[j] == -INFINITY ? 0.0f : expf(sc[j] - m_new);
            p_s[r * (kKeysPerTile + 1) + t * S::kKeysPerThread + j] = pj;
            psum += pj;
        }
        FOLIO_UNROLL
        for (int off = S::kThreadsPerRow / 2; off > 0; off >>= 1) psum += __shfl_xor_sync(kFullMask, psum, off);
        l = l * corr + psum;
        m = m_new;
        __syncwarp();  // the row's probabilities come from the row's other threads, all in this warp
        FOLIO_UNROLL
        for (int j = 0; j < S::kDimsPerThread; ++j) {
            const int d = t + j * S::kThreadsPerRow;
            float acc = o[j] * corr;
            for (int key = 0; key < kKeysPerTile; ++key) acc += p_s[r * (kKeysPerTile + 1) + key] * v_s[key * D + d];
            o[j] = acc;
        }
    }
    if (r < rows) {
        __half* out = a.out + size_t(row0 + r) * a.out_stride + size_t(h) * D;
        const float inv = 1.0f / l;
        FOLIO_UNROLL
        for (int j = 0; j < S::kDimsPerThread; ++j) out[t + j * S::kThreadsPerRow] = __float2half_rn(o[j] * inv * v_factor);
    }
}

template <int D, bool kFp8>
void launch_prefill_as(const PrefillAttention& a, const PagedKv& kv, cudaStream_t stream) {
    const size_t smem = PrefillShape<D>::kSmemFloats * sizeof(float);
    if (smem > 48 * 1024) allow_dynamic_smem(prefill_kernel<D, kFp8>, smem);
    launch(prefill_kernel<D, kFp8>, dim3(unsigned(a.num_tiles), unsigned(a.num_heads)), dim3(kThreads), smem, stream, a, kv);
}

template <int D>
void launch_prefill(const PrefillAttention& a, const PagedKv& kv, cudaStream_t stream) {
    if (is_fp8(kv.dtype)) launch_prefill_as<D, true>(a, kv, stream);
    else launch_prefill_as<D, false>(a, kv, stream);
}

}  // namespace

int prefill_tile_rows(int head_dim) {
    if (prefill_mma_supports(head_dim)) return 64;  // the tensor-core kernel's tile
    return head_dim <= 128 ? 32 : 16;
}

void prefill_attention(const PrefillAttention& a, const PagedKv& kv, cudaStream_t stream) {
    if (a.num_tiles <= 0) return;
    if (a.num_heads % kv.num_kv_heads != 0) throw Error("prefill_attention: num_heads must be a multiple of num_kv_heads");
    if (is_fp8(kv.dtype) && (!kv.k_scale || !kv.v_scale)) throw Error("prefill_attention: an FP8 KV cache needs its scales");
    if (prefill_mma_supports(kv.head_dim)) return prefill_attention_mma(a, kv, stream);
    switch (kv.head_dim) {
        case 8: return launch_prefill<8>(a, kv, stream);
        case 16: return launch_prefill<16>(a, kv, stream);
        case 32: return launch_prefill<32>(a, kv, stream);
        case 64: return launch_prefill<64>(a, kv, stream);
        case 80: return launch_prefill<80>(a, kv, stream);
        case 96: return launch_prefill<96>(a, kv, stream);
        case 128: return launch_prefill<128>(a, kv, stream);
        case 256: return launch_prefill<256>(a, kv, stream);
    }
    throw Error("prefill_attention: head_dim " + std::to_string(kv.head_dim) + " is not supported");
}

}  // namespace folio::cuda
