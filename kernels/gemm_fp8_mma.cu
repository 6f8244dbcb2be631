// W8A8 FP8 GEMM for sm_89+: y[m, n] = (x codes . W codes^T) * x_scale[row] * w_scale[col], both operands
// E4M3, mma.sync m16n8k32 e4m3 with fp32 accumulation. Block tile 64x64 and 64 codes of k, 4 warps of
// 32x32, two shared-memory stages filled by cp.async (A and B alike: codes are bytes, 16 per copy).
// 8-bit mma fragments are what ldmatrix gives for rows of 16 bytes read as 8 b16 elements, so both
// operands load exactly as the fp16 kernel's do (gemm_mma.cu) with twice the k per row. Needs k % 16 == 0
// (whole 16-byte copies); rows past m and columns past n are zero-filled.
// quantize_rows_fp8 turns the fp16 activations into codes and a scale per row first.
#include "kernels/common/device_utils.cuh"
#include "kernels/common/fp8.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/ptx.cuh"
#include "kernels/common/split_k.cuh"
#include "kernels/gemm.h"

namespace folio::cuda {

namespace {

constexpr int kBM = 64, kBN = 64, kBK = 64;  // kBK in codes (bytes)
constexpr int kThreads = 128;
constexpr int kPad = 16;  // bytes of padding per shared row: conflict-free ldmatrix, 16-byte aligned

struct Fp8GemmArgs {
    const uint8_t* x;
    const float* x_scale;
    int m, k, n;
    Fp8WeightsView w;
    void* y;
    int k_tiles_per_split;
    SplitKWorkspace ws;
};

template <class Out>
__global__ void __launch_bounds__(kThreads) gemm_fp8_kernel(Fp8GemmArgs a) {
    __shared__ __align__(16) uint8_t As[2][kBM][kBK + kPad];
    __shared__ __align__(16) uint8_t Bs[2][kBN][kBK + kPad];
    const int tid = int(threadIdx.x), lane = tid % 32, warp = tid / 32;
    const int wm = warp / 2, wn = warp % 2;
    const int m0 = int(blockIdx.y) * kBM, n0 = int(blockIdx.x) * kBN;
    const int k_tiles = (a.k + kBK - 1) / kBK;
    const int kt0 = int(blockIdx.z) * a.k_tiles_per_split;
    const int kt1 = min(kt0 + a.k_tiles_per_split, k_tiles);

    // 64 rows x 64 codes: 256 pieces of 16, two per thread; a piece is all in or all out (k % 16 == 0).
    auto load_rows = [&](uint8_t (*dst)[kBK + kPad], const uint8_t* src, int rows_total, int row0, int k0) {
        FOLIO_UNROLL
        for (int i = 0; i < 2; ++i) {
            const int c = tid + i * kThreads;
            const int r = c / 4, kc = (c % 4) * 16;
            const int row = row0 + r, kk = k0 + kc;
            const bool ok = row < rows_total && kk < a.k;
            ptx::cp_async_16(&dst[r][kc], ok ? src + size_t(row) * a.k + kk : src, ok);
        }
    };
    auto issue_tile = [&](int kt, int buf) {
        load_rows(As[buf], a.x, a.m, m0, kt * kBK);
        load_rows(Bs[buf], a.w.w, a.n, n0, kt * kBK);
        ptx::cp_async_commit();
    };

    float acc[2][4][4];
    FOLIO_UNROLL
    for (int i = 0; i < 2; ++i)
        FOLIO_UNROLL
        for (int j = 0; j < 4; ++j)
            FOLIO_UNROLL
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    if (kt0 < kt1) issue_tile(kt0, 0);
    for (int kt = kt0; kt < kt1; ++kt) {
        const int cur = (kt - kt0) & 1;
        ptx::cp_async_wait<0>();
        __syncthreads();  // tile kt is in shared memory; nobody still reads the other stage
        if (kt + 1 < kt1) issue_tile(kt + 1, cur ^ 1);
        FOLIO_UNROLL
        for (int kk = 0; kk < kBK; kk += 32) {
            uint32_t af[2][4], bf[4][2];
            FOLIO_UNROLL
            for (int mi = 0; mi < 2; ++mi)
                ptx::ldmatrix_x4(af[mi], &As[cur][wm * 32 + mi * 16 + (lane % 8) + ((lane / 8) & 1) * 8][kk + (lane / 16) * 16]);
            FOLIO_UNROLL
            for (int nj = 0; nj < 2; ++nj) {
                uint32_t r[4];
                ptx::ldmatrix_x4(r, &Bs[cur][wn * 32 + nj * 16 + (lane % 8) + (lane / 16) * 8][kk + ((lane / 8) & 1) * 16]);
                bf[2 * nj][0] = r[0];
                bf[2 * nj][1] = r[1];
                bf[2 * nj + 1][0] = r[2];
                bf[2 * nj + 1][1] = r[3];
            }
            FOLIO_UNROLL
            for (int mi = 0; mi < 2; ++mi)
                FOLIO_UNROLL
                for (int ni = 0; ni < 4; ++ni) ptx::mma_m16n8k32_e4m3(acc[mi][ni], af[mi], bf[ni], acc[mi][ni]);
        }
    }

    // Epilogue: fragment (mi, ni, e) is row g (+8 for e >= 2), columns 2t, 2t+1 of its 16x8 tile; the
    // scales apply once, after the sums (split-K partials are unscaled).
    Out* y = static_cast<Out*>(a.y);
    const int g = lane / 4, t = lane % 4;
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
                    if (splits == 1) store_as(y + size_t(row) * a.n + col, acc[mi][ni][e] * (a.x_scale[row] * a.w.row_scale[col]));
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
        store_as(y + size_t(row) * a.n + col, v * (a.x_scale[row] * a.w.row_scale[col]));
    }
}

// One warp per row: amax over the row, the scale, then the codes.
__global__ void __launch_bounds__(256) quantize_rows_kernel(const __half* x, int m, int k, float static_scale, uint8_t* codes,
                                                            float* scales) {
    const int lane = int(threadIdx.x) % 32;
    const int row = int(blockIdx.x) * 8 + int(threadIdx.x) / 32;
    if (row >= m) return;  // a whole warp
    const __half* xr = x + size_t(row) * k;
    float scale = static_scale;
    if (!(scale > 0.0f)) {
        float amax = 0.0f;
        for (int i = lane; i < k; i += 32) amax = fmaxf(amax, fabsf(__half2float(xr[i])));
        amax = warp_max(amax);
        scale = fmaxf(amax / kFp8E4m3Max, 1.0f / (kFp8E4m3Max * 512.0f));
    }
    for (int i = lane; i < k; i += 32) codes[size_t(row) * k + i] = f32_to_fp8_e4m3(__half2float(xr[i]) / scale);
    if (lane == 0) scales[row] = scale;
}

}  // namespace

int gemm_fp8_mma_splits(int m, int k, int n, int sm_count) {
    const int tiles = ((n + kBN - 1) / kBN) * ((m + kBM - 1) / kBM);
    const int k_tiles = (k + kBK - 1) / kBK;
    if (tiles >= sm_count) return 1;
    const int splits = (2 * sm_count + tiles - 1) / tiles;
    const int max_splits = k_tiles / 4 > 1 ? k_tiles / 4 : 1;  // keep at least 4 k-tiles per split
    return splits > max_splits ? max_splits : splits;
}

void quantize_rows_fp8(const __half* x, int m, int k, float static_scale, uint8_t* codes, float* scales, cudaStream_t stream) {
    if (m <= 0) return;
    launch(quantize_rows_kernel, dim3(unsigned((m + 7) / 8)), dim3(256), 0, stream, x, m, k, static_scale, codes, scales);
}

void gemm_fp8_mma(const Fp8WeightsView& w, const uint8_t* x_codes, const float* x_scales, int m, void* y, bool out_fp32, int splits,
                  int sm_count, const SplitKWorkspace& ws, cudaStream_t stream) {
    if (m <= 0) return;
    if (w.e5m2 || w.k % 16 != 0) throw Error("gemm_fp8_mma: E4M3 weights with k a multiple of 16 only");
    if (splits <= 0) splits = gemm_fp8_mma_splits(m, w.k, w.n, sm_count);
    if (splits > 1 && (ws.partial_floats < split_k_partial_floats(m, w.n, splits) || ws.num_counters < split_k_counters(m, w.n)))
        throw Error("gemm_fp8_mma: split-K workspace too small");
    Fp8GemmArgs a{x_codes, x_scales, m, w.k, w.n, w, y, 0, ws};
    const int k_tiles = (a.k + kBK - 1) / kBK;
    a.k_tiles_per_split = (k_tiles + splits - 1) / splits;
    splits = (k_tiles + a.k_tiles_per_split - 1) / a.k_tiles_per_split;
    const dim3 grid(unsigned((a.n + kBN - 1) / kBN), unsigned((a.m + kBM - 1) / kBM), unsigned(splits));
    if (out_fp32) launch(gemm_fp8_kernel<float>, grid, dim3(kThreads), 0, stream, a);
    else launch(gemm_fp8_kernel<__half>, grid, dim3(kThreads), 0, stream, a);
}

}  // namespace folio::cuda
