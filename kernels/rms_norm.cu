#include "kernels/rms_norm.h"

#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"

namespace folio::cuda {

namespace {

// One block per output row; x is staged in shared memory between the two passes.
__global__ void __launch_bounds__(256) rms_norm_kernel(float* residual, const __half* delta, const float* weight, __half* out,
                                                       const int32_t* row_map, int dim, float eps) {
    __shared__ float scratch[32];
    float* x = dynamic_smem<float>();
    const int i = int(blockIdx.x);
    const int row = row_map ? row_map[i] : i;
    float* res = residual + size_t(row) * dim;
    const __half* dl = delta ? delta + size_t(row) * dim : nullptr;
    float ss = 0.0f;
    for (int d = int(threadIdx.x); d < dim; d += int(blockDim.x)) {
        float v = res[d];
        if (dl) v += __half2float(dl[d]);
        x[d] = v;
        ss += v * v;
    }
    ss = block_sum(ss, scratch);
    const float inv = 1.0f / sqrtf(ss / float(dim) + eps);
    const bool write_back = dl != nullptr && row_map == nullptr;
    __half* o = out + size_t(i) * dim;
    for (int d = int(threadIdx.x); d < dim; d += int(blockDim.x)) {
        const float v = x[d];
        if (write_back) res[d] = v;
        o[d] = __float2half_rn((v * inv) * weight[d]);
    }
}

}  // namespace

void rms_norm(float* residual, const __half* delta, const float* weight, __half* out, const int32_t* row_map, int num_out,
              int dim, float eps, cudaStream_t stream) {
    if (num_out <= 0) return;
    const int threads = dim >= 256 ? 256 : ((dim + 31) / 32) * 32;
    launch(rms_norm_kernel, dim3(unsigned(num_out)), dim3(unsigned(threads)), size_t(dim) * sizeof(float), stream, residual,
           delta, weight, out, row_map, dim, eps);
}

}  // namespace folio::cuda
