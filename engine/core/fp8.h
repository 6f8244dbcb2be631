#pragma once
// OCP 8-bit floats, bit-exact and portable: E4M3 ("e4m3fn": bias 7, no infinities, NaN = S.1111.111,
// largest 448) and E5M2 (bias 15, IEEE-like: infinities and NaNs, largest 57344). The encoders round
// to nearest even and saturate to the largest finite value (the "satfinite" conversions of PTX and
// cuda_fp8.h), so a checkpoint's or a KV cache's bytes never hold an infinity made by overflow; NaN
// encodes as 0x7F in both formats, as cuda_fp8.h's host conversion does. Every SIMD and device
// decoder in the project must agree with these (tests/engine/core/fp8_test.cpp; against cuda_fp8.h
// in fp8_cuda_reference_test.cpp).
#include <cstdint>
#include <cstring>

#include "engine/core/half.h"

// The encoders and the E4M3 -> fp16 move are also device functions when nvcc compiles a kernel, so
// the CUDA kernels and the SIMT harness run exactly this code (one definition, bit for bit).
#if defined(__CUDACC__)
#define FOLIO_FP8_HD __host__ __device__
#else
#define FOLIO_FP8_HD
#endif

namespace folio {

inline constexpr float kFp8E4m3Max = 448.0f;
inline constexpr float kFp8E5m2Max = 57344.0f;

// An E4M3 code's value / 256 as fp16 bits, exactly: moving the fields into an fp16 rebiases the
// exponent from 7 to 15, so the fp16 is the value times 2^-8 (subnormals included); NaN becomes the
// fp16 quiet NaN of the same sign. The SIMD and device decoders do the same in vector registers (shift,
// fp16 -> fp32 in hardware, times 256, folded into the scale).
FOLIO_FP8_HD inline uint16_t fp8_e4m3_to_f16_scaled(uint8_t x) {
    if ((x & 0x7Fu) == 0x7Fu) return uint16_t(((x & 0x80u) << 8) | 0x7E00u);
    return uint16_t(((x & 0x80u) << 8) | ((x & 0x7Fu) << 7));
}

inline float fp8_e4m3_to_f32(uint8_t x) { return f16_to_f32(fp8_e4m3_to_f16_scaled(x)) * 256.0f; }

// E5M2 is the top byte of an fp16.
inline float fp8_e5m2_to_f32(uint8_t x) { return f16_to_f32(uint16_t(uint16_t(x) << 8)); }

namespace detail {

// Round-to-nearest-even encoder shared by both formats, M mantissa bits and exponent bias B, without
// branches (selects only), so that converting a whole matrix vectorises.
template <int M, int B, uint32_t kMaxCode>
FOLIO_FP8_HD inline uint8_t f32_to_fp8(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const uint32_t sign = (u >> 24) & 0x80u;
    const uint32_t a = u & 0x7FFFFFFFu;
    // Normal range: rebias the exponent (127 -> B), drop 23 - M mantissa bits rounding to nearest even
    // (a carry into the exponent is right), saturate at the largest finite code (infinities too).
    constexpr uint32_t kDrop = 23 - M;
    const uint32_t t = a - (uint32_t(127 - B) << 23);
    uint32_t normal = (t + ((1u << (kDrop - 1)) - 1u) + ((t >> kDrop) & 1u)) >> kDrop;
    normal = normal < kMaxCode ? normal : kMaxCode;
    // Below the smallest normal 2^(1-B): the value in units of the smallest subnormal 2^(1-B-M), which
    // is the 24-bit significand shifted right by 151 - B - M - exponent, rounded to nearest even (it
    // may round up to the smallest normal's code, which is right). Shifts past 31 leave only zero.
    const uint32_t e = a >> 23;
    const uint32_t raw_shift = uint32_t(151 - B - M) - e;  // wraps (unused) in the normal range
    // raw_shift is 0 only in the normal range (whose result this is not); 31 keeps the shifts below
    // defined there as well as for the values too small for any subnormal.
    const uint32_t shift = raw_shift >= 1u && raw_shift < 31u ? raw_shift : 31u;
    const uint32_t sig = (a & 0x7FFFFFu) | 0x800000u;
    const uint32_t sub = (sig + ((1u << (shift - 1)) - 1u) + ((sig >> shift) & 1u)) >> shift;
    const uint32_t code = a >= (uint32_t(128 - B) << 23) ? normal : sub;
    return uint8_t(a > 0x7F800000u ? 0x7Fu : (code | sign));  // NaN (any sign): 0x7F
}

}  // namespace detail

FOLIO_FP8_HD inline uint8_t f32_to_fp8_e4m3(float f) { return detail::f32_to_fp8<3, 7, 0x7Eu>(f); }
FOLIO_FP8_HD inline uint8_t f32_to_fp8_e5m2(float f) { return detail::f32_to_fp8<2, 15, 0x7Bu>(f); }
// One code as fp16 bits: E5M2 exactly, E4M3 as value / 256 (see fp8_e4m3_to_f16_scaled).
FOLIO_FP8_HD inline uint16_t fp8_to_f16_scaled(uint8_t x, bool e5m2) {
    return e5m2 ? uint16_t(uint16_t(x) << 8) : fp8_e4m3_to_f16_scaled(x);
}
// What a value decoded through fp8_to_f16_scaled is to be multiplied by: 256 for E4M3, 1 for E5M2.
FOLIO_FP8_HD inline float fp8_f16_scale(bool e5m2) { return e5m2 ? 1.0f : 256.0f; }

}  // namespace folio
