// FP8 conversions against the formats' definitions: every code decodes to the value its fields
// define, every value encodes to the nearest code (ties to the even code, beyond the largest finite
// value saturated to it), and NaN, infinities, zeros and the subnormal range behave as specified.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "engine/core/fp8.h"

namespace folio {
namespace {

struct Format {
    const char* name;
    int mant_bits, bias;
    float max;
    float (*decode)(uint8_t);
    uint8_t (*encode)(float);
    bool is_nan(uint8_t c) const {
        const uint8_t a = c & 0x7F;
        return mant_bits == 3 ? a == 0x7F : a > 0x7C;
    }
    bool is_inf(uint8_t c) const { return mant_bits == 2 && (c & 0x7F) == 0x7C; }
    // The value the code's fields define, in double.
    double defined(uint8_t c) const {
        const int e = (c & 0x7F) >> mant_bits, m = c & ((1 << mant_bits) - 1);
        const double mag = e == 0 ? std::ldexp(double(m), 1 - bias - mant_bits)
                                  : std::ldexp(1.0 + double(m) / double(1 << mant_bits), e - bias);
        return (c & 0x80) ? -mag : mag;
    }
};

const Format kFormats[] = {{"e4m3", 3, 7, 448.0f, fp8_e4m3_to_f32, f32_to_fp8_e4m3},
                           {"e5m2", 2, 15, 57344.0f, fp8_e5m2_to_f32, f32_to_fp8_e5m2}};

TEST(Fp8, EveryCodeDecodesToItsDefinedValueAndRoundTrips) {
    for (const Format& f : kFormats) {
        int finite = 0;
        for (int c = 0; c < 256; ++c) {
            const uint8_t code = uint8_t(c);
            const float v = f.decode(code);
            if (f.is_nan(code)) {
                EXPECT_TRUE(std::isnan(v)) << f.name << " " << c;
                continue;
            }
            if (f.is_inf(code)) {
                EXPECT_TRUE(std::isinf(v) && (v < 0) == bool(code & 0x80)) << f.name << " " << c;
                continue;
            }
            ++finite;
            EXPECT_EQ(double(v), f.defined(code)) << f.name << " code " << c;
            EXPECT_EQ(std::signbit(v), bool(code & 0x80)) << f.name << " code " << c;
            EXPECT_EQ(f.encode(v), code) << f.name << " code " << c;
        }
        EXPECT_EQ(finite, f.mant_bits == 3 ? 254 : 248) << f.name;
        EXPECT_EQ(f.decode(f.encode(1e30f)), f.max) << f.name;
    }
}

// The nearest finite code by brute force (ties: the code with an even last bit), saturating.
uint8_t nearest(const Format& f, float x) {
    if (std::isnan(x)) return 0x7F;
    const uint8_t sign = std::signbit(x) ? 0x80 : 0;
    const double a = std::fabs(double(x));
    if (a >= f.max) return uint8_t(sign | f.encode(f.max));
    uint8_t best = 0;
    double best_d = a;
    for (int c = 1; c < 0x80; ++c) {
        if (f.is_nan(uint8_t(c)) || f.is_inf(uint8_t(c))) continue;
        const double d = std::fabs(f.defined(uint8_t(c)) - a);
        if (d < best_d || (d == best_d && (c & 1) == 0 && (best & 1) == 1)) {
            best = uint8_t(c);
            best_d = d;
        }
    }
    return uint8_t(sign | best);
}

TEST(Fp8, EncodingRoundsToNearestEvenAndSaturates) {
    for (const Format& f : kFormats) {
        // Every midpoint between neighbouring codes, and one fp32 step either side of it.
        for (int c = 0; c < 0x7F; ++c) {
            const uint8_t lo = uint8_t(c), hi = uint8_t(c + 1);
            if (f.is_nan(hi) || f.is_inf(hi)) break;
            const float mid = float((f.defined(lo) + f.defined(hi)) / 2);  // exact in fp32
            const uint8_t even = (lo & 1) ? hi : lo;
            EXPECT_EQ(f.encode(mid), even) << f.name << " midpoint after code " << c;
            EXPECT_EQ(f.encode(-mid), uint8_t(even | 0x80)) << f.name << " -midpoint after code " << c;
            EXPECT_EQ(f.encode(std::nextafter(mid, 0.0f)), lo) << f.name << " below midpoint " << c;
            EXPECT_EQ(f.encode(std::nextafter(mid, INFINITY)), hi) << f.name << " above midpoint " << c;
        }
        std::mt19937 rng(7);
        for (int i = 0; i < 20000; ++i) {
            // Magnitudes spread over the format's range and beyond, both signs.
            const float mag = std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(rng),
                                         std::uniform_int_distribution<int>(-30, 20)(rng));
            const float x = (rng() & 1) ? -mag : mag;
            ASSERT_EQ(f.encode(x), nearest(f, x)) << f.name << " " << x;
        }
    }
}

TEST(Fp8, SpecialValues) {
    for (const Format& f : kFormats) {
        EXPECT_EQ(f.encode(std::numeric_limits<float>::quiet_NaN()), 0x7F) << f.name;
        EXPECT_EQ(f.encode(-std::numeric_limits<float>::quiet_NaN()), 0x7F) << f.name;
        EXPECT_EQ(f.decode(f.encode(INFINITY)), f.max) << f.name;    // satfinite: no infinity from overflow
        EXPECT_EQ(f.decode(f.encode(-INFINITY)), -f.max) << f.name;
        EXPECT_EQ(f.encode(0.0f), 0x00) << f.name;
        EXPECT_EQ(f.encode(-0.0f), 0x80) << f.name;
        EXPECT_EQ(f.encode(std::numeric_limits<float>::denorm_min()), 0x00) << f.name;
        EXPECT_EQ(f.encode(-1e-30f), 0x80) << f.name;
        const float smallest = float(f.defined(1));
        EXPECT_EQ(f.encode(smallest), 0x01) << f.name;
        EXPECT_EQ(f.encode(smallest / 2), 0x00) << f.name;                              // tie: even (zero)
        EXPECT_EQ(f.encode(std::nextafter(smallest / 2, 1.0f)), 0x01) << f.name;
        EXPECT_EQ(f.encode(smallest * 1.5f), 0x02) << f.name;                           // tie: even
    }
    EXPECT_EQ(f32_to_fp8_e4m3(448.0f), 0x7E);
    EXPECT_EQ(f32_to_fp8_e4m3(464.0f), 0x7E);  // the tie past 448 would be 480 (a NaN code): saturated
    EXPECT_EQ(f32_to_fp8_e4m3(1e9f), 0x7E);
    EXPECT_EQ(f32_to_fp8_e5m2(57344.0f), 0x7B);
    EXPECT_EQ(f32_to_fp8_e5m2(1e9f), 0x7B);
    EXPECT_EQ(f32_to_fp8_e4m3(1.0f), 0x38);
    EXPECT_EQ(f32_to_fp8_e5m2(1.0f), 0x3C);
    EXPECT_TRUE(std::isnan(fp8_e4m3_to_f32(0xFF)));
    EXPECT_TRUE(std::isinf(fp8_e5m2_to_f32(0xFC)));
}

}  // namespace
}  // namespace folio
