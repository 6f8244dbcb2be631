// Prefill attention on tensor cores (flash-attention 2 style) for head_dim 64, 80, 96, 128: a block
// holds 64 query rows of one sequence and one head, 16 per warp. Q stays in registers as mma A
// fragments; K and V come through the block table 32 keys at a time (cp.async into shared memory);
// S = Q.K^T and O += P.V are mma.sync m16n8k16 with fp32 accumulators, the online softmax runs on
// the S accumulators (two rows per lane, reduced over the lane quad), and P turns into the A
// fragments of the P.V product without touching shared memory.
#include "kernels/attention_prefill_mma.h"

#include "kernels/attention_kv.cuh"
#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/ptx.cuh"

namespace folio::cuda {

namespace {

constexpr int kThreads = 128;
constexpr int kRows = 64;  // query rows per block
constexpr int kKeys = 32;  // keys per shared-memory tile

// FP8 pools: the tile's codes go into shared memory as fp16 scaled codes (through registers; fp16
// pools use cp.async), the K scale multiplies the scores and the V scale the output.
template <int D, bool kFp8>
__global__ void __launch_bounds__(kThreads) prefill_mma_kernel(PrefillAttention a, PagedKv kv) {
    constexpr int LD = D + 8;  // padded rows: conflict-free ldmatrix, 16-byte aligned
    __shared__ __align__(16) __half qs[kRows][LD];
    __shared__ __align__(16) __half ks[kKeys][LD];
    __shared__ __align__(16) __half vs[kKeys][LD];
    const int tile = int(blockIdx.x), h = int(blockIdx.y);
    const int s = a.tile_seq[tile];
    const int q0 = a.tile_q0[tile];
    const int before = a.seq_context_before[s];
    const int rows = min(kRows, a.seq_num_q[s] - q0);
    const int kvh = h / (a.num_heads / kv.num_kv_heads);
    const int tid = int(threadIdx.x), lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4;
    const int row0 = a.seq_q_row[s] + q0;
    const int32_t* table = kv.block_tables + size_t(s) * kv.max_blocks_per_seq;
    const int bs = kv.block_size;
    const bool e5m2 = kv_e5m2(kv);
    const float score_scale = a.scale * kv_factor<kFp8>(kv.k_scale, e5m2);
    const float v_factor = kv_factor<kFp8>(kv.v_scale, e5m2);

    for (int c = tid; c < kRows * (D / 8); c += kThreads) {
        const int r = c / (D / 8), piece = c % (D / 8);
        const bool ok = r < rows;
        const __half* src = a.q + size_t(row0 + (ok ? r : 0)) * a.q_stride + size_t(h) * D + piece * 8;
        ptx::cp_async_16(&qs[r][piece * 8], src, ok);
    }
    ptx::cp_async_commit();
    ptx::cp_async_wait<0>();
    __syncthreads();
    uint32_t qf[D / 16][4];
    FOLIO_UNROLL
    for (int kk = 0; kk < D / 16; ++kk)
        ptx::ldmatrix_x4(qf[kk], &qs[warp * 16 + (lane % 8) + ((lane / 8) & 1) * 8][kk * 16 + (lane / 16) * 8]);

    float o[D / 8][4];
    FOLIO_UNROLL
    for (int i = 0; i < D / 8; ++i)
        FOLIO_UNROLL
        for (int e = 0; e < 4; ++e) o[i][e] = 0.0f;
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    const int pos[2] = {before + q0 + warp * 16 + g, before + q0 + warp * 16 + g + 8};  // this lane's two rows
    const int last_key = before + q0 + rows - 1;
    // Sliding window: key tiles start at the first row's oldest visible key; each row masks its own.
    const int first_key = a.window > 0 ? max(0, before + q0 - a.window + 1) : 0;
    const int oldest[2] = {a.window > 0 ? pos[0] - a.window + 1 : 0, a.window > 0 ? pos[1] - a.window + 1 : 0};

    for (int k0 = first_key; k0 <= last_key; k0 += kKeys) {
        __syncthreads();  // everyone is done with the previous K/V tile
        for (int c = tid; c < kKeys * (D / 8); c += kThreads) {
            const int key = c / (D / 8), piece = c % (D / 8);
            const int p = k0 + key;
            const bool ok = p <= last_key;
            const size_t off = ok ? ((size_t(table[p / bs]) * kv.num_kv_heads + kvh) * bs + p % bs) * D + piece * 8 : 0;
            if constexpr (kFp8) {
                const uint4 zero = make_uint4(0, 0, 0, 0);
                *reinterpret_cast<uint4*>(&ks[key][piece * 8]) = ok ? load_kv8_half<true>(kv.k_pool, off, e5m2) : zero;
                *reinterpret_cast<uint4*>(&vs[key][piece * 8]) = ok ? load_kv8_half<true>(kv.v_pool, off, e5m2) : zero;
            } else {
                ptx::cp_async_16(&ks[key][piece * 8], static_cast<const __half*>(kv.k_pool) + off, ok);
                ptx::cp_async_16(&vs[key][piece * 8], static_cast<const __half*>(kv.v_pool) + off, ok);
            }
        }
        ptx::cp_async_commit();
        ptx::cp_async_wait<0>();
        __syncthreads();

        // S = Q . K^T for this warp's 16 rows and the tile's 32 keys.
        float sc[kKeys / 8][4];
        FOLIO_UNROLL
        for (int i = 0; i < kKeys / 8; ++i)
            FOLIO_UNROLL
            for (int e = 0; e < 4; ++e) sc[i][e] = 0.0f;
        FOLIO_UNROLL
        for (int kk = 0; kk < D / 16; ++kk) {
            FOLIO_UNROLL
            for (int nj = 0; nj < kKeys / 16; ++nj) {
                uint32_t r[4];
                ptx::ldmatrix_x4(r, &ks[nj * 16 + (lane % 8) + (lane / 16) * 8][kk * 16 + ((lane / 8) & 1) * 8]);
                const uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
                ptx::mma_m16n8k16_f16(sc[2 * nj], qf[kk], b0, sc[2 * nj]);
                ptx::mma_m16n8k16_f16(sc[2 * nj + 1], qf[kk], b1, sc[2 * nj + 1]);
            }
        }
        // Scale, causal and window mask; accumulator e holds row g (e < 2) or g + 8, key 8i + 2t + (e & 1).
        FOLIO_UNROLL
        for (int i = 0; i < kKeys / 8; ++i)
            FOLIO_UNROLL
            for (int e = 0; e < 4; ++e) {
                const int key = k0 + i * 8 + 2 * t + (e & 1);
                sc[i][e] = key <= pos[e / 2] && key >= oldest[e / 2] ? sc[i][e] * score_scale : -INFINITY;
            }
        // Online softmax, per row over the lane quad that holds it.
        FOLIO_UNROLL
        for (int r = 0; r < 2; ++r) {
            float mx = -INFINITY;
            FOLIO_UNROLL
            for (int i = 0; i < kKeys / 8; ++i) mx = fmaxf(mx, fmaxf(sc[i][2 * r], sc[i][2 * r + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(kFullMask, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(kFullMask, mx, 2));
            const float m_new = fmaxf(m[r], mx);
            const float corr = m_new == -INFINITY ? 1.0f : expf(m[r] - m_new);
            float sum = 0.0f;
            FOLIO_UNROLL
            for (int i = 0; i < kKeys / 8; ++i)
                FOLIO_UNROLL
                for (int e = 2 * r; e < 2 * r + 2; ++e) {
                    const float p = sc[i][e] == -INFINITY ? 0.0f : expf(sc[i][e] - m_new);
                    sc[i][e] = p;
                    sum += p;
                }
            sum += __shfl_xor_sync(kFullMask, sum, 1);
            sum += __shfl_xor_sync(kFullMask, sum, 2);
            l[r] = l[r] * corr + sum;
            m[r] = m_new;
            FOLIO_UNROLL
            for (int i = 0; i < D / 8; ++i) {
                o[i][2 * r] *= corr;
                o[i][2 * r + 1] *= corr;
            }
        }
        // O += P . V: two adjacent S accumulator tiles are one A fragment of P (fp16).
        FOLIO_UNROLL
        for (int kk = 0; kk < kKeys / 16; ++kk) {
            const uint32_t pa[4] = {ptx::pack_half2(sc[2 * kk][0], sc[2 * kk][1]), ptx::pack_half2(sc[2 * kk][2], sc[2 * kk][3]),
                                    ptx::pack_half2(sc[2 * kk + 1][0], sc[2 * kk + 1][1]),
                                    ptx::pack_half2(sc[2 * kk + 1][2], sc[2 * kk + 1][3])};
            FOLIO_UNROLL
            for (int nd = 0; nd < D / 16; ++nd) {
                uint32_t r[4];
                ptx::ldmatrix_x4_trans(r, &vs[kk * 16 + (lane % 8) + ((lane / 8) & 1) * 8][nd * 16 + (lane / 16) * 8]);
                const uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
                ptx::mma_m16n8k16_f16(o[2 * nd], pa, b0, o[2 * nd]);
                ptx::mma_m16n8k16_f16(o[2 * nd + 1], pa, b1, o[2 * nd + 1]);
            }
        }
    }
    FOLIO_UNROLL
    for (int r = 0; r < 2; ++r) {
        const int row = warp * 16 + g + 8 * r;
        if (row >= rows) continue;
        __half* out = a.out + size_t(row0 + row) * a.out_stride + size_t(h) * D;
        const float inv = 1.0f / l[r] * v_factor;
        FOLIO_UNROLL
        for (int i = 0; i < D / 8; ++i)
            *reinterpret_cast<__half2*>(out + i * 8 + 2 * t) = __floats2half2_rn(o[i][2 * r] * inv, o[i][2 * r + 1] * inv);
    }
}

template <bool kFp8>
void launch_mma(const PrefillAttention& a, const PagedKv& kv, cudaStream_t stream) {
    const dim3 grid(unsigned(a.num_tiles), unsigned(a.num_heads));
    switch (kv.head_dim) {
        case 64: return launch(prefill_mma_kernel<64, kFp8>, grid, dim3(kThreads), 0, stream, a, kv);
        case 80: return launch(prefill_mma_kernel<80, kFp8>, grid, dim3(kThreads), 0, stream, a, kv);
        case 96: return launch(prefill_mma_kernel<96, kFp8>, grid, dim3(kThreads), 0, stream, a, kv);
        case 128: return launch(prefill_mma_kernel<128, kFp8>, grid, dim3(kThreads), 0, stream, a, kv);
    }
    throw Error("prefill_attention_mma: head_dim " + std::to_string(kv.head_dim) + " is not supported");
}

}  // namespace

bool prefill_mma_supports(int head_dim) { return head_dim == 64 || head_dim == 80 || head_dim == 96 || head_dim == 128; }

void prefill_attention_mma(const PrefillAttention& a, const PagedKv& kv, cudaStream_t stream) {
    if (is_fp8(kv.dtype)) return launch_mma<true>(a, kv, stream);
    launch_mma<false>(a, kv, stream);
}

}  // namespace folio::cuda
