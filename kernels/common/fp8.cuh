#pragma once
// FP8 in the kernels. Codes become fp16 exactly (E5M2 is an fp16's top byte; E4M3 moved into an
// fp16's fields is its value / 256, engine/core/fp8.h), so a kernel reads FP8 weights or KV as
// "scaled codes" in fp16 or fp32 and multiplies its result once by the matrix's or layer's scale times
// fp8_f16_scale (256 for E4M3). Encoding is engine/core/fp8.h's function itself (a device function
// under nvcc), so the CPU, the SIMT harness and the device write the same bytes.
#include <cstdint>

#include "engine/core/fp8.h"
#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

// The fp16 of one code: value / fp8_f16_scale(e5m2).
__device__ __forceinline__ __half fp8_to_half_scaled(uint8_t c, bool e5m2) { return __ushort_as_half(fp8_to_f16_scaled(c, e5m2)); }

// Eight codes (8 bytes) as eight scaled values in fp32.
__device__ __forceinline__ void fp8x8_to_float(uint2 raw, bool e5m2, float (&out)[8]) {
    uint8_t b[8];
    memcpy(b, &raw, 8);
    FOLIO_UNROLL
    for (int i = 0; i < 8; ++i) out[i] = __half2float(fp8_to_half_scaled(b[i], e5m2));
}

// Eight codes (8 bytes) as eight scaled halves packed in 16 bytes (an fp16 tile row for ldmatrix).
__device__ __forceinline__ uint4 fp8x8_to_half8(uint2 raw, bool e5m2) {
    uint8_t b[8];
    memcpy(b, &raw, 8);
    uint16_t h[8];
    FOLIO_UNROLL
    for (int i = 0; i < 8; ++i) h[i] = fp8_to_f16_scaled(b[i], e5m2);
    uint4 out;
    memcpy(&out, h, 16);
    return out;
}

// Eight codes at p (8-byte aligned) as scaled fp32 values.
__device__ __forceinline__ void load_fp8x8(const uint8_t* p, bool e5m2, float (&out)[8]) {
    fp8x8_to_float(*reinterpret_cast<const uint2*>(p), e5m2, out);
}

__device__ __forceinline__ uint8_t fp8_encode(float x, bool e5m2) { return e5m2 ? f32_to_fp8_e5m2(x) : f32_to_fp8_e4m3(x); }

}  // namespace folio::cuda
