#include "kernels/convert.h"

#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"

namespace folio::cuda {

namespace {

__device__ __forceinline__ float load_any(const void* src, int dtype, int64_t i) {
    switch (dtype) {
        case 0: return static_cast<const float*>(src)[i];
        case 1: return __half2float(static_cast<const __half*>(src)[i]);
        default: return __bfloat162float(static_cast<const __nv_bfloat16*>(src)[i]);
    }
}

template <class Out>
__global__ void __launch_bounds__(256) convert_kernel(const void* src, int dtype, Out* dst, int64_t n) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        store_as(dst + i, load_any(src, dtype, i));
}

__global__ void __launch_bounds__(256) to_half_kernel(const void* src, int dtype, __half* dst, int64_t n, HalfOverflow* overflow) {
    unsigned int lost = 0, max_bits = 0;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
        const float x = load_any(src, dtype, i);
        const __half h = __float2half_rn(x);
        dst[i] = h;
        const float ax = fabsf(x);
        if (ax <= 3.402823466e38f) {  // finite (NaN fails every comparison)
            lost += fabsf(__half2float(h)) <= 65504.0f ? 0u : 1u;
            max_bits = max(max_bits, __float_as_uint(ax));  // non-negative floats order as their bits
        }
    }
    if (!overflow) return;
    if (lost) atomicAdd(&overflow->count, lost);
    if (max_bits) atomicMax(&overflow->max_abs_bits, max_bits);
}

int dtype_code(DType t) {
    switch (t) {
        case DType::F32: return 0;
        case DType::F16: return 1;
        case DType::BF16: return 2;
        case DType::I32:
        case DType::I64: break;
        case DType::F8_E4M3:
        case DType::F8_E5M2: throw Error("convert: FP8 tensors are uploaded as FP8 matrices, not converted");
    }
    throw Error("convert: integer tensors cannot be converted to floating point");
}

unsigned grid_for(int64_t n) {
    const int64_t blocks = (n + 255) / 256;
    return unsigned(blocks < 4096 ? blocks : 4096);
}

}  // namespace

void convert_to_half(const void* src, DType dtype, __half* dst, int64_t n, cudaStream_t stream, HalfOverflow* overflow) {
    if (n <= 0) return;
    launch(to_half_kernel, dim3(grid_for(n)), dim3(256), 0, stream, src, dtype_code(dtype), dst, n, overflow);
}

void convert_to_float(const void* src, DType dtype, float* dst, int64_t n, cudaStream_t stream) {
    if (n <= 0) return;
    launch(convert_kernel<float>, dim3(grid_for(n)), dim3(256), 0, stream, src, dtype_code(dtype), dst, n);
}

}  // namespace folio::cuda
