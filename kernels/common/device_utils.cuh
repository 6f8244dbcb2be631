#pragma once
// Small device helpers shared by the kernels: dynamic shared memory, warp and block reductions,
// 16-byte vector access to fp16 data.
#include <cstdint>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

inline constexpr unsigned kFullMask = 0xffffffffu;

// The block's dynamic shared memory (the `extern __shared__` array), 16-byte aligned.
template <class T>
__device__ __forceinline__ T* dynamic_smem() {
#if defined(FOLIO_SIMT)
    return static_cast<T*>(simt::dynamic_smem());
#else
    extern __shared__ __align__(16) unsigned char folio_dynamic_smem[];
    return reinterpret_cast<T*>(folio_dynamic_smem);
#endif
}

__device__ __forceinline__ float warp_sum(float v) {
    FOLIO_UNROLL
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    FOLIO_UNROLL
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, o));
    return v;
}

// Sum over the whole block (blockDim.x a multiple of 32, at most 1024); every thread gets the result.
// `scratch` holds 32 floats of shared memory; the call begins and ends with a barrier of its own.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
    const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    const int warps = int(blockDim.x) >> 5;
    float t = lane < warps ? scratch[lane] : 0.0f;
    return warp_sum(t);
}

__device__ __forceinline__ float block_max(float v, float* scratch) {
    const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
    v = warp_max(v);
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    const int warps = int(blockDim.x) >> 5;
    float t = lane < warps ? scratch[lane] : -INFINITY;
    return warp_max(t);
}

// Eight halves <-> eight floats through one 16-byte access (p 16-byte aligned). The register copies
// go through memcpy, which compiles to moves and keeps host compilers' aliasing rules satisfied.
__device__ __forceinline__ void load_half8(const __half* p, float (&out)[8]) {
    const uint4 raw = *reinterpret_cast<const uint4*>(p);
    __half2 h[4];
    memcpy(h, &raw, sizeof(raw));
    FOLIO_UNROLL
    for (int i = 0; i < 4; ++i) {
        const float2 f = __half22float2(h[i]);
        out[2 * i] = f.x;
        out[2 * i + 1] = f.y;
    }
}

__device__ __forceinline__ void store_half8(__half* p, const float (&v)[8]) {
    __half2 h[4];
    FOLIO_UNROLL
    for (int i = 0; i < 4; ++i) h[i] = __floats2half2_rn(v[2 * i], v[2 * i + 1]);
    uint4 raw;
    memcpy(&raw, h, sizeof(raw));
    *reinterpret_cast<uint4*>(p) = raw;
}

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ void store_as(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_as(__half* p, float v) { *p = __float2half_rn(v); }

__device__ __forceinline__ int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace folio::cuda
