// Tensor-core GEMM y[m, n] = x[m, k] . W^T with mma.sync m16n8k16 (fp16 in, fp32 accumulate).
// Block tile 64x64x32, 4 warps of 32x32, two shared-memory stages: the next A tile streams in with
// cp.async while the current one is multiplied. B comes either from fp16 weights [n, k] (cp.async,
// then ldmatrix) or from AWQ int4 (global loads into registers one stage ahead, dequantised as
// (q - z) * s into a [k, n] tile, then ldmatrix.trans) or from FP8 codes [n, k] (global loads one stage
// ahead, decoded to fp16 scaled codes, exact, into an [n, k] tile; each output column is multiplied by
// its row scale in the epilogue). Rows past m, columns past n and (dense and FP8) a k that is not a
// multiple of 8 (16 for FP8) are handled by zero fill.
#include "kernels/common/awq_pack.cuh"
#include "kernels/common/device_utils.cuh"
#include "kernels/common/fp8.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/ptx.cuh"
#include "kernels/common/split_k.cuh"
#include "kernels/gemm.h"

namespace folio::cuda {

namespace {

constexpr int kBM = 64, kBN = 64, kBK = 32;
constexpr int kThreads = 128;
constexpr int kPad = 8;  // halves of padding per shared row: conflict-free ldmatrix

// Where the B tile comes from.
constexpr int kBDense = 0, kBAwq = 1, kBFp8 = 2;

struct GemmArgs {
    const __half* x;
    int m, k, n;
    AwqWeightsView awq;
    DenseWeightsView dense;
    Fp8WeightsView fp8;
    void* y;
    int k_tiles_per_split;
    SplitKWorkspace ws;
};

// AWQ B tile in flight: two int32 words per thread plus their group's zeros and scales.
struct AwqFetch {
    uint32_t q[2];
    uint32_t z[2];
    float s[2][8];
};

// FP8 B tile in flight: 16 codes per thread (64 rows x 32 codes).
struct Fp8Fetch {
    uint4 q;
};

template <int kB, bool kAligned, class Out>
__global__ void __launch_bounds__(kThreads) gemm_kernel(GemmArgs a) {
    constexpr bool kAwq = kB == kBAwq;
    __shared__ __align__(16) __half As[2][kBM][kBK + kPad];
    // Dense: [n][k]; AWQ: [k][n]. Same bytes either way.
    __shared__ __align__(16) __half Bs[2][kAwq ? kBK : kBN][(kAwq ? kBN : kBK) + kPad];

    const int tid = int(threadIdx.x), lane = tid % 32, warp = tid / 32;
    const int wm = warp / 2, wn = warp % 2;
    const int m0 = int(blockIdx.y) * kBM, n0 = int(blockIdx.x) * kBN;
    const int k_tiles = (a.k + kBK - 1) / kBK;
    const int kt0 = int(blockIdx.z) * a.k_tiles_per_split;
    const int kt1 = min(kt0 + a.k_tiles_per_split, k_tiles);

    auto load_rows = [&](__half (*dst)[kBK + kPad], const __half* src, int rows_total, int row0, int k0) {
        // 64 rows x 32 halves: 256 pieces of 8, two per thread.
        FOLIO_UNROLL
        for (int i = 0; i < 2; ++i) {
            const int c = tid + i * kThreads;
            const int r = c / 4, kc = (c % 4) * 8;
            const int row = row0 + r, kk = k0 + kc;
            if constexpr (kAligned) {
                const bool ok = row < rows_total && kk < a.k;  // k % 8 == 0: a piece is all in or all out
                ptx::cp_async_16(&dst[r][kc], ok ? src + size_t(row) * a.k + kk : src, ok);
            } else {
                FOLIO_UNROLL
                for (int e = 0; e < 8; ++e)
                    dst[r][kc + e] = (row < rows_total && kk + e < a.k) ? src[size_t(row) * a.k + kk + e] : __float2half_rn(0.0f);
            }
        }
    };
    auto fetch_awq = [&](AwqFetch& f, int k0) {
        const int words = a.n / 8;
        const int g = k0 / a.awq.group_size;
        FOLIO_UNROLL
        for (int i = 0; i < 2; ++i) {
            const int wi = tid + i * kThreads;  // 32 rows x 8 words
            const int kr = wi / 8, word = n0 / 8 + wi % 8;
            const bool ok = word < words;
            f.q[i] = ok ? uint32_t(a.awq.qweight[size_t(k0 + kr) * words + word]) : 0u;
            f.z[i] = ok ? uint32_t(a.awq.qzeros[size_t(g) * words + word]) : 0u;
            if (ok) load_half8(a.awq.scales + size_t(g) * a.n + size_t(word) * 8, f.s[i]);
            else
                FOLIO_UNROLL
                for (int e = 0; e < 8; ++e) f.s[i][e] = 0.0f;
        }
    };
    auto store_awq = [&](const AwqFetch& f, int buf) {
        FOLIO_UNROLL
        for (int i = 0; i < 2; ++i) {
            const int wi = tid + i * kThreads;
            const int kr = wi / 8, wc = wi % 8;
            float v[8];
            FOLIO_UNROLL
            for (int j = 0; j < 8; ++j) {
                const int c = awq_nibble_column(j);
                v[c] = float(int((f.q[i] >> (4 * j)) & 15u) - int((f.z[i] >> (4 * j)) & 15u)) * f.s[i][c];
            }
            store_half8(&Bs[buf][kr][wc * 8], v);
        }
    };
    // FP8: thread t holds codes [16 * (t % 2), +16) of row t / 2 of the tile.
    auto fetch_fp8 = [&](Fp8Fetch& f, int k0) {
        const int row = n0 + tid / 2, kk = k0 + (tid % 2) * 16;
        if constexpr (kAligned) {  // k % 16 == 0: a piece is all in or all out
            const bool ok = row < a.n && kk < a.k;
            f.q = ok ? *reinterpret_cast<const uint4*>(a.fp8.w + size_t(row) * a.k + kk) : make_uint4(0, 0, 0, 0);
        } else {
            uint8_t b[16];
            FOLIO_UNROLL
            for (int e = 0; e < 16; ++e) b[e] = row < a.n && kk + e < a.k ? a.fp8.w[size_t(row) * a.k + kk + e] : uint8_t(0);
            memcpy(&f.q, b, 16);
        }
    };
    auto store_fp8 = [&](const Fp8Fetch& f, int buf) {
        __half* dst = &reinterpret_cast<__half (*)[kBK + kPad]>(Bs[buf])[tid / 2][(tid % 2) * 16];
        *reinterpret_cast<uint4*>(dst) = fp8x8_to_half8(make_uint2(f.q.x, f.q.y), a.fp8.e5m2);
        *reinterpret_cast<uint4*>(dst + 8) = fp8x8_to_half8(make_uint2(f.q.z, f.q.w), a.fp8.e5m2);
    };
    auto issue_tile = [&](int kt, int buf, AwqFetch& f, Fp8Fetch& f8) {
        load_rows(As[buf], a.x, a.m, m0, kt * kBK);
        if constexpr (kB == kBAwq) fetch_awq(f, kt * kBK);
        else if constexpr (kB == kBFp8) fetch_fp8(f8, kt * kBK);
        else load_rows(reinterpret_cast<__half (*)[kBK + kPad]>(Bs[buf]), a.dense.w, a.n, n0, kt * kBK);
        ptx::cp_async_commit();
    };

    float acc[2][4][4];
    FOLIO_UNROLL
    for (int i = 0; i < 2; ++i)
        FOLIO_UNROLL
        for (int j = 0; j < 4; ++j)
            FOLIO_UNROLL
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    AwqFetch fetch;
    Fp8Fetch fetch8;
    if (kt0 < kt1) {
        issue_tile(kt0, 0, fetch, fetch8);
        if constexpr (kB == kBAwq) store_awq(fetch, 0);
        if constexpr (kB == kBFp8) store_fp8(fetch8, 0);
    }
    for (int kt = kt0; kt < kt1; ++kt) {
        const int cur = (kt - kt0) & 1;
        ptx::cp_async_wait<0>();
        __syncthreads();  // tile kt is in shared memory; nobody still reads the other stage
        const bool more = kt + 1 < kt1;
        if (more) issue_tile(kt + 1, cur ^ 1, fetch, fetch8);
        FOLIO_UNROLL
        for (int kk = 0; kk < kBK; kk += 16) {
            uint32_t af[2][4], bf[4][2];
            FOLIO_UNROLL
            for (int mi = 0; mi < 2; ++mi)
                ptx::ldmatrix_x4(af[mi], &As[cur][wm * 32 + mi * 16 + (lane % 8) + ((lane / 8) & 1) * 8][kk + (lane / 16) * 8]);
            FOLIO_UNROLL
            for (int nj = 0; nj < 2; ++nj) {
                uint32_t r[4];
                if constexpr (kAwq)
                    ptx::ldmatrix_x4_trans(r, &Bs[cur][kk + (lane % 8) + ((lane / 8) & 1) * 8][wn * 32 + nj * 16 + (lane / 16) * 8]);
                else
                    ptx::ldmatrix_x4(r, &Bs[cur][wn * 32 + nj * 16 + (lane % 8) + (lane / 16) * 8][kk + ((lane / 8) & 1) * 8]);
                bf[2 * nj][0] = r[0];
                bf[2 * nj][1] = r[1];
                bf[2 * nj + 1][0] = r[2];
                bf[2 * nj + 1][1] = r[3];
            }
            FOLIO_UNROLL
            for (int mi = 0; mi < 2; ++mi)
                FOLIO_UNROLL
                for (int ni = 0; ni < 4; ++ni) ptx::mma_m16n8k16_f16(acc[mi][ni], af[mi], bf[ni], acc[mi][ni]);
        }
        if constexpr (kB == kBAwq)
            if (more) store_awq(fetch, cur ^ 1);  // that stage was last read before this iteration's barrier
        if constexpr (kB == kBFp8)
            if (more) store_fp8(fetch8, cur ^ 1);
    }

    // Epilogue: fragment (mi, ni, e) is row g (+8 for e >= 2), columns 2t, 2t+1 of its 16x8 tile.
    Out* y = static_cast<Out*>(a.y);
    const int g = lane / 4, t = lane % 4;
    // FP8: each output column times its row scale (and 256 for E4M3), once, after the sums.
    const float f16_scale = kB == kBFp8 ? fp8_f16_scale(a.fp8.e5m2) : 1.0f;
    auto col_scale = [&](int col) { return kB == kBFp8 ? a.fp8.row_scale[col] * f16_scale : 1.0f; };
    const int splits = int(gridDim.z);
    float* part = a.ws.partials + size_t(blockIdx.z) * a.m * a.n;
    FOLIO_UNROLL
    for (int mi = 0; mi < 2; ++mi)
        FOLIO_UNROLL
        for (int ni = 0; ni < 4; ++ni)
            FOLIO_UNROLL
            for (int e = 0; e < 4; ++e) {
                const int row = m0 + wm * 32 + mi * 16 + g + (e >= 2 ? 8 : 0);
                const int col = n0 + wn * 32 + ni * 8 + t * 2 + (e & 1);
                if (row < a.m && col < a.n) {
                    if (splits == 1) store_as(y + size_t(row) * a.n + col, kB == kBFp8 ? acc[mi][ni][e] * col_scale(col) : acc[mi][ni][e]);
                    else part[size_t(row) * a.n + col] = acc[mi][ni][e];
                }
            }
    if (splits == 1) return;
    if (!split_k_arrive_last(a.ws.counters + blockIdx.y * gridDim.x + blockIdx.x, splits)) return;
    for (int i = tid; i < kBM * kBN; i += kThreads) {
        const int row = m0 + i / kBN, col = n0 + i % kBN;
        if (row >= a.m || col >= a.n) continue;
        float v = 0.0f;
        for (int sp = 0; sp < splits; ++sp) v += __ldcg(a.ws.partials + (size_t(sp) * a.m + row) * a.n + col);
        store_as(y + size_t(row) * a.n + col, kB == kBFp8 ? v * col_scale(col) : v);
    }
}

template <int kB, bool kAligned>
void launch_gemm(GemmArgs args, bool out_fp32, int splits, cudaStream_t stream) {
    const int k_tiles = (args.k + kBK - 1) / kBK;
    args.k_tiles_per_split = (k_tiles + splits - 1) / splits;
    splits = (k_tiles + args.k_tiles_per_split - 1) / args.k_tiles_per_split;
    const dim3 grid(unsigned((args.n + kBN - 1) / kBN), unsigned((args.m + kBM - 1) / kBM), unsigned(splits));
    if (out_fp32) launch(gemm_kernel<kB, kAligned, float>, grid, dim3(kThreads), 0, stream, args);
    else launch(gemm_kernel<kB, kAligned, __half>, grid, dim3(kThreads), 0, stream, args);
}

void check_workspace(int m, int n, int splits, const SplitKWorkspace& ws, const char* who) {
    if (splits > 1 && (ws.partial_floats < split_k_partial_floats(m, n, splits) || ws.num_counters < split_k_counters(m, n)))
        throw Error(std::string(who) + ": split-K workspace too small");
}

}  // namespace

int gemm_mma_splits(int m, int k, int n, int sm_count) {
    const int tiles = ((n + kBN - 1) / kBN) * ((m + kBM - 1) / kBM);
    const int k_tiles = (k + kBK - 1) / kBK;
    if (tiles >= sm_count) return 1;
    int splits = (2 * sm_count + tiles - 1) / tiles;
    const int max_splits = k_tiles / 4 > 1 ? k_tiles / 4 : 1;  // keep at least 4 k-tiles per split
    return splits > max_splits ? max_splits : splits;
}

size_t split_k_partial_floats(int m, int n, int splits) { return splits > 1 ? size_t(splits) * m * n : 0; }

int split_k_counters(int m, int n) {
    const int gemv = (n / 8 + 31) / 32;
    const int gemm = ((n + kBN - 1) / kBN) * ((m + kBM - 1) / kBM);
    return gemv > gemm ? gemv : gemm;
}

void gemm_mma_awq(const AwqWeightsView& w, const __half* x, int m, void* y, bool out_fp32, int splits, int sm_count,
                  const SplitKWorkspace& ws, cudaStream_t stream) {
    if (m <= 0) return;
    if (w.group_size % kBK != 0 || w.k % w.group_size != 0 || w.n % 8 != 0)
        throw Error("gemm_mma_awq: group size must be a multiple of 32 dividing k, and n a multiple of 8");
    if (splits <= 0) splits = gemm_mma_splits(m, w.k, w.n, sm_count);
    check_workspace(m, w.n, splits, ws, "gemm_mma_awq");
    GemmArgs a{x, m, w.k, w.n, w, {}, {}, y, 0, ws};
    launch_gemm<kBAwq, true>(a, out_fp32, splits, stream);
}

void gemm_mma_dense(const DenseWeightsView& w, const __half* x, int m, void* y, bool out_fp32, int splits, int sm_count,
                    const SplitKWorkspace& ws, cudaStream_t stream) {
    if (m <= 0) return;
    if (splits <= 0) splits = gemm_mma_splits(m, w.k, w.n, sm_count);
    check_workspace(m, w.n, splits, ws, "gemm_mma_dense");
    GemmArgs a{x, m, w.k, w.n, {}, w, {}, y, 0, ws};
    // 16-byte copies need rows that start on 16 bytes: k a multiple of 8 halves.
    if (w.k % 8 == 0) launch_gemm<kBDense, true>(a, out_fp32, splits, stream);
    else launch_gemm<kBDense, false>(a, out_fp32, splits, stream);
}

void gemm_mma_fp8w(const Fp8WeightsView& w, const __half* x, int m, void* y, bool out_fp32, int splits, int sm_count,
                   const SplitKWorkspace& ws, cudaStream_t stream) {
    if (m <= 0) return;
    if (splits <= 0) splits = gemm_mma_splits(m, w.k, w.n, sm_count);
    check_workspace(m, w.n, splits, ws, "gemm_mma_fp8w");
    GemmArgs a{x, m, w.k, w.n, {}, {}, w, y, 0, ws};
    // 16 codes per load need rows that start on 16 bytes (and the activations' 16-byte copies with them).
    if (w.k % 16 == 0) launch_gemm<kBFp8, true>(a, out_fp32, splits, stream);
    else launch_gemm<kBFp8, false>(a, out_fp32, splits, stream);
}

}  // namespace folio::cuda
