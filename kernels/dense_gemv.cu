// fp16 dense GEMV for small batches (m <= 8): a warp takes four output columns, its lanes streaming
// the weight rows in 16-byte pieces (each weight byte read once per call) against every input row;
// the lanes' partial sums meet in shared memory, one exchange per four columns instead of a
// shuffle tree per (column, row).
#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/gemm.h"

namespace folio::cuda {

namespace {

constexpr int kWarps = 8;
constexpr int kColsPerWarp = 4;

template <int MR, class Out>
__global__ void __launch_bounds__(kWarps * 32) dense_gemv_kernel(DenseWeightsView w, const __half* x, int m, Out* y) {
    __shared__ float partial[kWarps][kColsPerWarp * MR][33];  // [value][lane], padded against bank conflicts
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    const int col0 = (int(blockIdx.x) * kWarps + warp) * kColsPerWarp;
    const bool vec = w.k % 8 == 0;
    FOLIO_UNROLL
    for (int c = 0; c < kColsPerWarp; ++c) {
        const int n = min(col0 + c, w.n - 1);  // past the end: recompute the last column, never stored
        const __half* wr = w.w + size_t(n) * w.k;
        float acc[MR];
        FOLIO_UNROLL
        for (int r = 0; r < MR; ++r) acc[r] = 0.0f;
        if (vec) {
            for (int k = lane * 8; k < w.k; k += 32 * 8) {
                float wv[8];
                load_half8(wr + k, wv);
                FOLIO_UNROLL
                for (int r = 0; r < MR; ++r) {
                    if (r < m) {
                        float xv[8];
                        load_half8(x + size_t(r) * w.k + k, xv);
                        FOLIO_UNROLL
                        for (int e = 0; e < 8; ++e) acc[r] += wv[e] * xv[e];
                    }
                }
            }
        } else {
            for (int k = lane; k < w.k; k += 32) {
                const float wv = __half2float(wr[k]);
                FOLIO_UNROLL
                for (int r = 0; r < MR; ++r)
                    if (r < m) acc[r] += wv * __half2float(x[size_t(r) * w.k + k]);
            }
        }
        FOLIO_UNROLL
        for (int r = 0; r < MR; ++r) partial[warp][c * MR + r][lane] = acc[r];
    }
    __syncwarp();
    // Lane j sums value j = (column j / MR, row j % MR) over the 32 lanes.
    if (lane < kColsPerWarp * MR) {
        const int c = lane / MR, r = lane % MR, n = col0 + c;
        float v = 0.0f;
        for (int l = 0; l < 32; ++l) v += partial[warp][lane][l];
        if (r < m && n < w.n) store_as(y + size_t(r) * w.n + n, v);
    }
}

template <int MR>
void launch_dense(const DenseWeightsView& w, const __half* x, int m, void* y, bool out_fp32, cudaStream_t stream) {
    const int per_block = kWarps * kColsPerWarp;
    const dim3 grid(unsigned((w.n + per_block - 1) / per_block));
    if (out_fp32) launch(dense_gemv_kernel<MR, float>, grid, dim3(kWarps * 32), 0, stream, w, x, m, static_cast<float*>(y));
    else launch(dense_gemv_kernel<MR, __half>, grid, dim3(kWarps * 32), 0, stream, w, x, m, static_cast<__half*>(y));
}

}  // namespace

void dense_gemv(const DenseWeightsView& w, const __half* x, int m, void* y, bool out_fp32, cudaStream_t stream) {
    if (m <= 0) return;
    if (m > kGemvMaxRows) throw Error("dense_gemv: at most 8 rows per call");
    if (m == 1) return launch_dense<1>(w, x, m, y, out_fp32, stream);
    if (m == 2) return launch_dense<2>(w, x, m, y, out_fp32, stream);
    if (m <= 4) return launch_dense<4>(w, x, m, y, out_fp32, stream);
    launch_dense<8>(w, x, m, y, out_fp32, stream);
}

}  // namespace folio::cuda
