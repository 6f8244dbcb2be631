#pragma once
// How the attention kernels read one layer's K and V pools (PagedKv): fp16 as stored, or FP8 codes as
// fp16 "scaled codes" whose scale (the layer's k_scale / v_scale times fp8_f16_scale) the kernel
// applies once, to the scores for K and to the output for V. With fp16 pools the factors are 1 and
// every operation is what it was before FP8 existed.
#include "kernels/attention.h"
#include "kernels/common/device_utils.cuh"
#include "kernels/common/fp8.cuh"

namespace folio::cuda {

// Eight consecutive elements of a pool at element offset `off` as fp32 (scaled codes for FP8).
template <bool kFp8>
__device__ __forceinline__ void load_kv8(const void* pool, size_t off, bool e5m2, float (&out)[8]) {
    if constexpr (kFp8) load_fp8x8(static_cast<const uint8_t*>(pool) + off, e5m2, out);
    else load_half8(static_cast<const __half*>(pool) + off, out);
}

// Eight consecutive elements as eight halves (16 bytes) for a shared-memory tile.
template <bool kFp8>
__device__ __forceinline__ uint4 load_kv8_half(const void* pool, size_t off, bool e5m2) {
    if constexpr (kFp8) return fp8x8_to_half8(*reinterpret_cast<const uint2*>(static_cast<const uint8_t*>(pool) + off), e5m2);
    else return *reinterpret_cast<const uint4*>(static_cast<const __half*>(pool) + off);
}

// The factor scores (K) or outputs (V) take: 1 for fp16, the scale times fp8_f16_scale for FP8.
template <bool kFp8>
__device__ __forceinline__ float kv_factor(const float* scale, bool e5m2) {
    if constexpr (kFp8) return *scale * fp8_f16_scale(e5m2);
    else return 1.0f;
}

__host__ __device__ inline bool kv_e5m2(const PagedKv& kv) { return kv.dtype == KvCacheDtype::Fp8E5M2; }

}  // namespace folio::cuda
