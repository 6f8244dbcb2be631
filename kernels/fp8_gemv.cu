// FP8-weight GEMV for small batches (m <= 8), weight-only (W8A16): as dense_gemv, a warp takes four
// output columns and its lanes stream the weight rows, here 16 codes (16 bytes) per load, decoded to
// fp16 scaled codes (exact), multiplied by the fp16 activations in fp32; each weight byte is read once
// per call. The row's scale (times 256 for E4M3) multiplies the sum once.
#include "kernels/common/device_utils.cuh"
#include "kernels/common/fp8.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/gemm.h"

namespace folio::cuda {

namespace {

constexpr int kWarps = 8;
constexpr int kColsPerWarp = 4;

template <int MR, class Out>
__global__ void __launch_bounds__(kWarps * 32) fp8_gemv_kernel(Fp8WeightsView w, const __half* x, int m, Out* y) {
    __shared__ float partial[kWarps][kColsPerWarp * MR][33];  // [value][lane], padded against bank conflicts
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    const int col0 = (int(blockIdx.x) * kWarps + warp) * kColsPerWarp;
    const bool vec = w.k % 16 == 0;
    FOLIO_UNROLL
    for (int c = 0; c < kColsPerWarp; ++c) {
        const int n = min(col0 + c, w.n - 1);  // past the end: recompute the last column, never stored
        const uint8_t* wr = w.w + size_t(n) * w.k;
        float acc[MR];
        FOLIO_UNROLL
        for (int r = 0; r < MR; ++r) acc[r] = 0.0f;
        if (vec) {
            for (int k = lane * 16; k < w.k; k += 32 * 16) {
                const uint4 raw = *reinterpret_cast<const uint4*>(wr + k);
                float wv[2][8];
                fp8x8_to_float(make_uint2(raw.x, raw.y), w.e5m2, wv[0]);
                fp8x8_to_float(make_uint2(raw.z, raw.w), w.e5m2, wv[1]);
                FOLIO_UNROLL
                for (int r = 0; r < MR; ++r) {
                    if (r < m) {
                        float xv[8];
                        FOLIO_UNROLL
                        for (int h = 0; h < 2; ++h) {
                            load_half8(x + size_t(r) * w.k + k + 8 * h, xv);
                            FOLIO_UNROLL
                            for (int e = 0; e < 8; ++e) acc[r] += wv[h][e] * xv[e];
                        }
                    }
                }
            }
        } else {
            for (int k = lane; k < w.k; k += 32) {
                const float wv = __half2float(fp8_to_half_scaled(wr[k], w.e5m2));
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
        if (r < m && n < w.n) store_as(y + size_t(r) * w.n + n, v * (w.row_scale[n] * fp8_f16_scale(w.e5m2)));
    }
}

template <int MR>
void launch_fp8(const Fp8WeightsView& w, const __half* x, int m, void* y, bool out_fp32, cudaStream_t stream) {
    const int per_block = kWarps * kColsPerWarp;
    const dim3 grid(unsigned((w.n + per_block - 1) / per_block));
    if (out_fp32) launch(fp8_gemv_kernel<MR, float>, grid, dim3(kWarps * 32), 0, stream, w, x, m, static_cast<float*>(y));
    else launch(fp8_gemv_kernel<MR, __half>, grid, dim3(kWarps * 32), 0, stream, w, x, m, static_cast<__half*>(y));
}

}  // namespace

void fp8_gemv(const Fp8WeightsView& w, const __half* x, int m, void* y, bool out_fp32, cudaStream_t stream) {
    if (m <= 0) return;
    if (m > kGemvMaxRows) throw Error("fp8_gemv: at most 8 rows per call");
    if (m == 1) return launch_fp8<1>(w, x, m, y, out_fp32, stream);
    // m = 2 runs the four-row kernel (rows past m are skipped, each row's sum is the same): a two-row
    // instantiation spills registers under ptxas for sm_89 (CUDA 13.0), which the build refuses.
    if (m <= 4) return launch_fp8<4>(w, x, m, y, out_fp32, stream);
    launch_fp8<8>(w, x, m, y, out_fp32, stream);
}

}  // namespace folio::cuda
