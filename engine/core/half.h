#pragma once
// IEEE half and bfloat16 conversions, bit-exact and portable (no F16C needed); SIMD kernels use
// their own vector conversions and must agree with these.
#include <cstdint>
#include <cstring>

namespace folio {

inline float bits_to_float(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint32_t float_to_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

inline float f16_to_f32(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        if (mant == 0) return bits_to_float(sign);
        // subnormal: normalise
        int e = -1;
        do { ++e; mant <<= 1; } while ((mant & 0x400u) == 0);
        mant &= 0x3ffu;
        return bits_to_float(sign | (uint32_t(127 - 15 - e) << 23) | (mant << 13));
    }
    if (exp == 31) return bits_to_float(sign | 0x7f800000u | (mant << 13));
    return bits_to_float(sign | ((exp + 112) << 23) | (mant << 13));
}

// Round to nearest even, as hardware conversions do.
inline uint16_t f32_to_f16(float f) {
    uint32_t x = float_to_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    x &= 0x7fffffffu;
    if (x >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (x > 0x7f800000u ? 0x200u : 0));  // inf/nan
    if (x >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // overflow to inf
    if (x < 0x38800000u) {  // subnormal or zero in half
        if (x < 0x33000000u) return uint16_t(sign);
        const uint32_t e = x >> 23;
        uint32_t m = (x & 0x7fffffu) | 0x800000u;
        const uint32_t s = 126 - e;  // bits to drop: half subnormals count units of 2^-24
        uint32_t val = m >> s;
        const uint32_t rem = m & ((1u << s) - 1);
        const uint32_t halfway = 1u << (s - 1);
        if (rem > halfway || (rem == halfway && (val & 1))) ++val;
        return uint16_t(sign | val);
    }
    uint32_t val = ((x >> 13) - (112u << 10));
    const uint32_t rem = x & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (val & 1))) ++val;
    return uint16_t(sign | val);
}

inline float bf16_to_f32(uint16_t b) { return bits_to_float(uint32_t(b) << 16); }

inline uint16_t f32_to_bf16(float f) {
    uint32_t x = float_to_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet nan
    x += 0x7fffu + ((x >> 16) & 1u);
    return uint16_t(x >> 16);
}

}  // namespace folio
