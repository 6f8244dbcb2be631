#pragma once
// OCP 8-bit floats, bit-exact and portable: E4M3 ("e4m3fn": bias 7, no infinities, NaN = S.1111.111,
// largest 448) and E5M2 (bias 15, IEEE-like: infinities and NaNs, largest 57344). The encoders round
// to nearest even and saturate to the largest finite value (the "satfinite" conversions of PTX and
// cuda_fp8.h), so a checkpoint's or a KV cache's bytes never hold an infinity made by overflow; NaN
// encodes as 0x7F in both formats, as cuda_fp8.h's host conversion does. Every SIMD and device
// decoder in the project must agree with these (tests/engine/core/fp8_test.cpp; against cuda_fp8.h
// in fp8_cuda_reference_test.cpp).
#include <cstdint>

#include "engine/core/half.h"

namespace folio {

inline constexpr float kFp8E4m3Max = 448.0f;
inline constexpr float kFp8E5m2Max = 57344.0f;

// An E4M3 code's value / 256 as fp16 bits, exactly: moving the fields into an fp16 rebiases the
// exponent from 7 to 15, so the fp16 is the value times 2^-8 (subnormals included); NaN becomes the
// fp16 quiet NaN of the same sign. The SIMD and device decoders do the same in vector registers (shift,
// fp16 -> fp32 in hardware, times 256, folded into the scale).
inline uint16_t fp8_e4m3_to_f16_scaled(uint8_t x) {
    if ((x & 0x7Fu) == 0x7Fu) return uint16_t(((x & 0x80u) << 8) | 0x7E00u);
    return uint16_t(((x & 0x80u) << 8) | ((x & 0x7Fu) << 7));
}

inline float fp8_e4m3_to_f32(uint8_t x) { return f16_to_f32(fp8_e4m3_to_f16_scaled(x)) * 256.0f; }

// E5M2 is the top byte of an fp16.
inline float fp8_e5m2_to_f32(uint8_t x) { return f16_to_f32(uint16_t(uint16_t(x) << 8)); }

namespace detail {

// Round-to-nearest-even encoder shared by both formats. mant_bits: 3 (E4M3) or 2 (E5M2); bias: 7 or
// 15; max_code: the largest finite magnitude's code (0x7E or 0x7B).
inline uint8_t f32_to_fp8(float f, int mant_bits, int bias, uint32_t max_code) {
    const uint32_t u = float_to_bits(f);
    const uint32_t sign = (u >> 24) & 0x80u;
    const uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return 0x7F;  // NaN (any sign): canonical 0x7F
    const int e = int(a >> 23) - 127;  // unbiased exponent of |f| (-127 for zeros and fp32 subnormals)
    const int min_normal = 1 - bias;
    uint32_t code;
    if (e >= min_normal) {
        // Normal range: keep mant_bits of the 23, round the rest to nearest even.
        const int drop = 23 - mant_bits;
        const uint32_t mant = a & 0x7FFFFFu;
        code = (uint32_t(e + bias) << mant_bits) | (mant >> drop);
        const uint32_t rem = mant & ((1u << drop) - 1u), half = 1u << (drop - 1);
        if (rem > half || (rem == half && (code & 1u))) ++code;  // a carry into the exponent is right
        if (code > max_code) code = max_code;                    // satfinite (also for infinities)
    } else {
        // Subnormal range: units of 2^(min_normal - mant_bits); the value in those units, rounded.
        // |f| < 2^min_normal, so the 24-bit significand shifted right by `shift` is at most
        // 2^mant_bits; shift >= 24 leaves only rounding bits (zero or the smallest subnormal).
        if (a < 0x00800000u) return uint8_t(sign);  // zero or an fp32 subnormal: far below the range
        const uint32_t sig = (a & 0x7FFFFFu) | 0x800000u;
        const int shift = 23 - mant_bits + (min_normal - e);
        if (shift > 31) return uint8_t(sign);
        code = sig >> shift;
        const uint32_t rem = sig & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (code & 1u))) ++code;  // may become the smallest normal: right
    }
    return uint8_t(sign | code);
}

}  // namespace detail

inline uint8_t f32_to_fp8_e4m3(float f) { return detail::f32_to_fp8(f, 3, 7, 0x7Eu); }
inline uint8_t f32_to_fp8_e5m2(float f) { return detail::f32_to_fp8(f, 2, 15, 0x7Bu); }

}  // namespace folio
