// fp16/bf16 conversions: exhaustive over all 65536 half values (against the CPU's own F16C
// instructions where present, and round trips), and round-to-nearest-even on the way back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "engine/core/half.h"

#if defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("f16c"))) static float hw_f16_to_f32(uint16_t h) { return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h))); }
__attribute__((target("f16c"))) static uint16_t hw_f32_to_f16(float f) {
    return uint16_t(_mm_cvtsi128_si32(_mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_TO_NEAREST_INT)));
}
#endif

namespace folio {
namespace {

TEST(Half, EveryHalfValueConvertsExactlyAndRoundTrips) {
#if defined(__x86_64__)
    const bool hw = __builtin_cpu_supports("f16c");
#endif
    for (uint32_t h = 0; h < 65536; ++h) {
        const float f = f16_to_f32(uint16_t(h));
        const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
        if (nan) {
            EXPECT_TRUE(std::isnan(f));
        } else {
            ASSERT_EQ(f32_to_f16(f), uint16_t(h)) << std::hex << h;
        }
#if defined(__x86_64__)
        if (hw && !nan) {
            const float g = hw_f16_to_f32(uint16_t(h));
            ASSERT_EQ(std::memcmp(&f, &g, 4), 0) << std::hex << h;
        }
#endif
    }
}

TEST(Half, FloatToHalfRoundsToNearestEven) {
    EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
    EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);
    EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);            // halfway to the next step: rounds to infinity
    EXPECT_EQ(f32_to_f16(1.0f + 1.0f / 2048), 0x3c00);  // exactly halfway between 1 and 1+2^-10: even
    EXPECT_EQ(f32_to_f16(1.0f + 3.0f / 2048), 0x3c02);
    EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
    EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);  // halfway to it: even (zero)
    EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
#if defined(__x86_64__)
    if (__builtin_cpu_supports("f16c")) {
        std::mt19937 rng(1);
        for (int i = 0; i < 200000; ++i) {
            uint32_t bits = rng();
            float f;
            std::memcpy(&f, &bits, 4);
            if (std::isnan(f)) continue;
            ASSERT_EQ(f32_to_f16(f), hw_f32_to_f16(f)) << std::hex << bits;
        }
    }
#endif
}

TEST(Half, Bfloat16) {
    EXPECT_EQ(bf16_to_f32(0x3f80), 1.0f);
    EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
    EXPECT_EQ(f32_to_bf16(bits_to_float(0x3f808000u)), 0x3f80);  // halfway: even
    EXPECT_EQ(f32_to_bf16(bits_to_float(0x3f818000u)), 0x3f82);
    for (uint32_t b = 0; b < 65536; ++b) {
        const float f = bf16_to_f32(uint16_t(b));
        if (!std::isnan(f)) {
            ASSERT_EQ(f32_to_bf16(f), uint16_t(b));
        }
    }
}

}  // namespace
}  // namespace folio
