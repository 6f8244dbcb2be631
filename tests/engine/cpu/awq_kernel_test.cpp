// The repacked AWQ layout and the integer AWQ kernel against straightforward references: every
// instruction-set variant present, random shapes including a half-filled last column block, several
// batch sizes; results must be bitwise the same whatever the batch size, row position, column split
// or instruction set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/cpu/act_quant.h"
#include "engine/cpu/awq_packed.h"
#include "engine/cpu/kernels.h"
#include "engine/model/awq.h"

namespace folio::cpu {
namespace {

struct RandomAwq {
    std::vector<int32_t> qweight, qzeros;
    std::vector<uint16_t> scales;
    AwqMatrix m;
    RandomAwq(int in, int out, int g, uint32_t seed) {
        std::mt19937 rng(seed);
        qweight.resize(size_t(in) * size_t(out / 8));
        qzeros.resize(size_t(in / g) * size_t(out / 8));
        scales.resize(size_t(in / g) * size_t(out));
        for (auto& v : qweight) v = int32_t(rng());
        for (auto& v : qzeros) v = int32_t(rng());
        std::uniform_real_distribution<float> sd(0.001f, 0.05f);
        for (auto& v : scales) v = f32_to_f16(sd(rng));
        m = AwqMatrix{in, out, g, qweight.data(), qzeros.data(), scales.data()};
    }
};

std::vector<const KernelTable*> tables() {
    std::vector<const KernelTable*> t;
    for (const char* isa : {"generic", "avx2", "avx512", "amx"})
        if (const KernelTable* k = kernels_for(isa)) t.push_back(k);
    return t;
}

TEST(AwqPacked, HoldsEveryValueOfTheCheckpoint) {
    for (auto [in, out, g] : {std::tuple{32, 8, 32}, {96, 40, 32}, {128, 72, 64}, {256, 48, 128}}) {
        RandomAwq a(in, out, g, uint32_t(in * 7 + out));
        const AwqPacked p = pack_awq(a.m);
        EXPECT_EQ(p.num_col_blocks, (out + 15) / 16);
        for (int i = 0; i < in; ++i)
            for (int o = 0; o < out; ++o) ASSERT_EQ(packed_q(p, i, o), awq_unpack(a.qweight[size_t(i) * (out / 8) + o / 8], o % 8));
        for (int gi = 0; gi < in / g; ++gi)
            for (int o = 0; o < out; ++o) {
                ASSERT_EQ(packed_zero(p, gi, o), awq_unpack(a.qzeros[size_t(gi) * (out / 8) + o / 8], o % 8));
                ASSERT_EQ(packed_scale(p, gi, o), a.scales[size_t(gi) * out + o]);
            }
        // Padding columns of a half-filled last block are zero.
        if (out % 16)
            for (int o = out; o < p.num_col_blocks * 16; ++o) {
                EXPECT_EQ(packed_zero(p, 0, o), 0);
                EXPECT_EQ(packed_scale(p, 0, o), 0);
            }
    }
}

TEST(AwqPacked, RejectsShapesItCannotPack) {
    RandomAwq a(64, 16, 32, 1);
    AwqMatrix bad = a.m;
    bad.out = 12;
    EXPECT_THROW(pack_awq(bad), Error);
    bad = a.m;
    bad.in = 48;
    EXPECT_THROW(pack_awq(bad), Error);
    bad = a.m;
    bad.group_size = 12;
    EXPECT_THROW(pack_awq(bad), Error);
}

TEST(QuantizeActs, PartsReconstructTheInput) {
    std::mt19937 rng(5);
    std::normal_distribution<float> nd(0.0f, 3.0f);
    const int rows = 3, cols = 256, block = 64;
    std::vector<float> x(size_t(rows) * cols);
    for (auto& v : x) v = nd(rng);
    x[7] = 0.0f;
    std::fill(x.begin() + 64, x.begin() + 128, 0.0f);  // an all-zero block
    for (int parts = 1; parts <= 3; ++parts) {
        QuantizedActs q;
        quantize_acts(x.data(), rows, cols, block, parts, q);
        for (int r = 0; r < rows; ++r)
            for (int b = 0; b < cols / block; ++b) {
                const float d = q.scale[size_t(r) * q.blocks_per_row + b];
                double sums[3] = {0, 0, 0};
                for (int i = b * block; i < (b + 1) * block; ++i) {
                    double rec = 0, unit = 1;
                    for (int p = 0; p < parts; ++p, unit /= 128) {
                        rec += q.at(r, p, i) * unit;
                        sums[p] += q.at(r, p, i);
                    }
                    const double err = std::fabs(rec * d - x[size_t(r) * cols + i]);
                    // Half a unit of the last part (plus the rounding of d itself).
                    EXPECT_LE(err, double(d) * (0.5 * std::pow(128.0, 1 - parts) + 1e-5)) << "parts " << parts;
                }
                int32_t isums[3] = {int32_t(sums[0]), int32_t(sums[1]), int32_t(sums[2])};
                EXPECT_EQ(q.sum[size_t(r) * q.blocks_per_row + b], combine_parts(isums, parts));
            }
    }
}

// quantize_row on every instruction set against act_quant.h's definition written out plainly
// (d = max|x| / 127, residuals in double, round half to even, clamp to +-127, times 128 per part):
// the same bits, for blocks the kernels take 16 at a time and for ones they take one by one.
TEST(QuantizeActs, EveryIsaMatchesTheDefinitionBitForBit) {
    std::mt19937 rng(6);
    std::normal_distribution<float> nd(0.0f, 2.0f);
    for (int block : {24, 64, 128}) {
        const int cols = block * 3;
        std::vector<float> x(static_cast<size_t>(cols));
        for (auto& v : x) v = nd(rng);
        x[1] = -0.0f;
        std::fill(x.begin() + block, x.begin() + 2 * block, 0.0f);  // an all-zero block
        x[size_t(2 * block + 3)] = -50.0f;                           // the block's largest, negative: -127 exactly
        x[size_t(2 * block + 4)] = 50.0f * 63.5f / 127.0f;          // near a tie at 63.5
        for (int parts = 1; parts <= 3; ++parts) {
            std::vector<int8_t> want(size_t(parts) * cols);
            std::vector<float> want_scale(3), want_sum(3);
            for (int b = 0; b < 3; ++b) {
                float amax = 0.0f;
                for (int i = 0; i < block; ++i) amax = std::max(amax, std::fabs(x[size_t(b * block + i)]));
                const float d = amax / 127.0f;
                const double inv = d > 0.0f ? 1.0 / double(d) : 0.0;
                int32_t sums[3] = {0, 0, 0};
                for (int i = 0; i < block; ++i) {
                    double r = double(x[size_t(b * block + i)]) * inv;
                    for (int p = 0; p < parts; ++p) {
                        const double v = std::min(127.0, std::max(-127.0, std::nearbyint(r)));
                        want[size_t(b * parts * block + p * block + i)] = int8_t(v);
                        sums[p] += int32_t(v);
                        r = (r - v) * 128.0;
                    }
                }
                want_scale[size_t(b)] = d;
                want_sum[size_t(b)] = combine_parts(sums, parts);
            }
            for (const char* isa : {"generic", "avx2", "avx512", "amx"}) {
                const KernelTable* k = kernels_for(isa);
                if (!k) continue;
                std::vector<int8_t> got(want.size(), 99);
                std::vector<float> scale(3), sum(3);
                k->quantize_row(x.data(), cols, block, parts, got.data(), parts * block, block, scale.data(), sum.data());
                EXPECT_EQ(got, want) << isa << " block " << block << " parts " << parts;
                EXPECT_EQ(std::memcmp(scale.data(), want_scale.data(), sizeof(float) * 3), 0) << isa << " block " << block;
                EXPECT_EQ(std::memcmp(sum.data(), want_sum.data(), sizeof(float) * 3), 0) << isa << " block " << block;
            }
        }
    }
}

// Reference: sum over i of w(i, o) * xhat(t, i) in double, with xhat the activations the parts encode.
std::vector<double> reference(const RandomAwq& a, const QuantizedActs& q, int m) {
    const AwqMatrix& w = a.m;
    std::vector<double> y(size_t(m) * w.out, 0.0);
    for (int t = 0; t < m; ++t)
        for (int i = 0; i < w.in; ++i) {
            double xh = 0, unit = 1;
            for (int p = 0; p < q.parts; ++p, unit /= 128) xh += q.at(t, p, i) * unit;
            xh *= q.scale[size_t(t) * q.blocks_per_row + i / q.block];
            for (int o = 0; o < w.out; ++o) y[size_t(t) * w.out + o] += double(awq_weight(w, i, o)) * xh;
        }
    return y;
}

TEST(AwqIntKernel, MatchesReferenceAndIsBitwiseStable) {
    std::mt19937 rng(11);
    std::normal_distribution<float> nd;
    for (auto [in, out, g] : {std::tuple{32, 8, 32}, {96, 40, 32}, {192, 56, 64}, {384, 136, 128}, {4096, 24, 128}}) {
        RandomAwq a(in, out, g, uint32_t(in + out));
        const AwqPacked p = pack_awq(a.m);
        // 21 rows: one full 16-row AMX tile and a partial one; 2 rows stay on the VNNI path, which
        // takes batches in tiles of 4 or 8 rows and the rest in tiles of 4, 2, 1 (7 = 4 + 2 + 1).
        // With 4096 inputs 70 rows are more than one span of rows whose activations stay in L2.
        for (int m : in < 4096 ? std::vector<int>{2, 7, 21} : std::vector<int>{70}) {
        std::vector<float> x(size_t(m) * in);
        for (auto& v : x) v = nd(rng);
        for (int parts = 1; parts <= 3; ++parts) {
            QuantizedActs q;
            quantize_acts(x.data(), m, in, g, parts, q);
            const auto ref = reference(a, q, m);
            std::vector<float> first;
            for (const KernelTable* k : tables()) {
                std::vector<float> y(size_t(m) * out, NAN);
                k->awq_int(p, 0, p.num_col_blocks, q, m, y.data(), out);
                double scale = 0;
                for (double r : ref) scale = std::max(scale, std::fabs(r));
                for (size_t i = 0; i < y.size(); ++i)
                    ASSERT_NEAR(y[i], ref[i], 1e-5 * scale) << k->isa << " in " << in << " out " << out << " parts " << parts;
                if (first.empty()) first = y;
                EXPECT_EQ(std::memcmp(first.data(), y.data(), y.size() * sizeof(float)), 0) << k->isa << " differs from generic";
                // Each row alone, and the column blocks one at a time: the very same bits.
                for (int t = 0; t < m; ++t) {
                    QuantizedActs one;
                    quantize_acts(x.data() + size_t(t) * in, 1, in, g, parts, one);
                    std::vector<float> y1(static_cast<size_t>(out));
                    for (int cb = 0; cb < p.num_col_blocks; ++cb) k->awq_int(p, cb, cb + 1, one, 1, y1.data(), out);
                    EXPECT_EQ(std::memcmp(y1.data(), y.data() + size_t(t) * out, size_t(out) * sizeof(float)), 0)
                        << k->isa << " row " << t << " alone";
                }
            }
        }
        }
    }
}

// 8-bit weights (pack_q8, the int8 mode's lm_head): the pack holds round(w / s) with s = fp16(max|w| /
// 127) per output and group, and the kernel gives the same exact-integer results on every
// instruction set, for every batch size, row position and column split.
struct RandomDense {
    std::vector<uint16_t> w;
    DenseMatrix m;
    RandomDense(int in, int out, uint32_t seed) : w(size_t(in) * size_t(out)) {
        std::mt19937 rng(seed);
        std::normal_distribution<float> nd(0.0f, 0.02f);
        for (auto& v : w) v = f32_to_f16(nd(rng));
        for (int i = 0; i < in; ++i) w[size_t(i)] = 0;  // an all-zero group of output 0
        m = DenseMatrix{DType::F16, out, in, w.data()};
    }
    float at(int i, int o) const { return f16_to_f32(w[size_t(o) * m.cols + i]); }
};

TEST(Q8Packed, HoldsTheRoundedWeights) {
    for (auto [in, out, g] : {std::tuple{32, 8, 32}, {128, 40, 64}, {256, 48, 128}}) {
        RandomDense d(in, out, uint32_t(in + out));
        const AwqPacked p = pack_q8(d.m, g);
        EXPECT_EQ(p.bits, 8);
        for (int o = 0; o < out; ++o)
            for (int gi = 0; gi < in / g; ++gi) {
                float amax = 0;
                for (int i = gi * g; i < (gi + 1) * g; ++i) amax = std::max(amax, std::fabs(d.at(i, o)));
                ASSERT_EQ(packed_scale(p, gi, o), f32_to_f16(amax / 127.0f));
                ASSERT_EQ(packed_zero(p, gi, o), 128);
                const float s = f16_to_f32(packed_scale(p, gi, o));
                for (int i = gi * g; i < (gi + 1) * g; ++i) {
                    const float want = s > 0 ? std::clamp(std::nearbyint(d.at(i, o) / s), -127.0f, 127.0f) : 0.0f;
                    ASSERT_EQ(packed_q(p, i, o) - 128, int(want)) << "in " << i << " out " << o;
                }
            }
    }
    EXPECT_THROW(pack_q8(RandomDense(48, 8, 1).m, 32), Error);
}

TEST(Q8IntKernel, MatchesReferenceAndIsBitwiseStable) {
    std::mt19937 rng(12);
    std::normal_distribution<float> nd;
    for (auto [in, out, g] : {std::tuple{32, 8, 32}, {192, 56, 64}, {384, 136, 128}}) {
        RandomDense d(in, out, uint32_t(in * 3 + out));
        const AwqPacked p = pack_q8(d.m, g);
        for (int m : {1, 7, 21}) {
            std::vector<float> x(size_t(m) * in);
            for (auto& v : x) v = nd(rng);
            for (int parts : {1, 3}) {
                QuantizedActs q;
                quantize_acts(x.data(), m, in, g, parts, q);
                std::vector<double> ref(size_t(m) * out, 0.0);
                double scale = 0;
                for (int t = 0; t < m; ++t)
                    for (int o = 0; o < out; ++o) {
                        for (int i = 0; i < in; ++i) {
                            double xh = 0, unit = 1;
                            for (int pp = 0; pp < parts; ++pp, unit /= 128) xh += q.at(t, pp, i) * unit;
                            xh *= q.scale[size_t(t) * q.blocks_per_row + i / g];
                            const double w = double(packed_q(p, i, o) - 128) * f16_to_f32(packed_scale(p, i / g, o));
                            ref[size_t(t) * out + o] += w * xh;
                        }
                        scale = std::max(scale, std::fabs(ref[size_t(t) * out + o]));
                    }
                std::vector<float> first;
                for (const KernelTable* k : tables()) {
                    std::vector<float> y(size_t(m) * out, NAN);
                    k->awq_int(p, 0, p.num_col_blocks, q, m, y.data(), out);
                    for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], ref[i], 1e-5 * scale) << k->isa << " in " << in << " parts " << parts;
                    if (first.empty()) first = y;
                    EXPECT_EQ(std::memcmp(first.data(), y.data(), y.size() * sizeof(float)), 0) << k->isa << " differs from generic";
                    for (int t = 0; t < m; ++t) {
                        QuantizedActs one;
                        quantize_acts(x.data() + size_t(t) * in, 1, in, g, parts, one);
                        std::vector<float> y1(static_cast<size_t>(out));
                        for (int cb = 0; cb < p.num_col_blocks; ++cb) k->awq_int(p, cb, cb + 1, one, 1, y1.data(), out);
                        EXPECT_EQ(std::memcmp(y1.data(), y.data() + size_t(t) * out, size_t(out) * sizeof(float)), 0) << k->isa << " row " << t;
                    }
                }
            }
        }
    }
}

// With three parts the kernel is as close to the fp32 product with the dequantized weights as fp32
// summation itself: the gap to a double reference on the raw activations stays near 1e-6.
TEST(AwqIntKernel, ThreePartsKeepFp32Accuracy) {
    std::mt19937 rng(2);
    std::normal_distribution<float> nd;
    const int in = 1024, out = 64, g = 128;
    RandomAwq a(in, out, g, 9);
    const AwqPacked p = pack_awq(a.m);
    std::vector<float> x(static_cast<size_t>(in));
    for (auto& v : x) v = nd(rng);
    QuantizedActs q;
    quantize_acts(x.data(), 1, in, g, 3, q);
    std::vector<float> y(static_cast<size_t>(out));
    kernels().awq_int(p, 0, p.num_col_blocks, q, 1, y.data(), out);
    for (int o = 0; o < out; ++o) {
        double ref = 0, mag = 0;
        for (int i = 0; i < in; ++i) {
            ref += double(awq_weight(a.m, i, o)) * x[size_t(i)];
            mag += std::fabs(double(awq_weight(a.m, i, o)) * x[size_t(i)]);
        }
        EXPECT_NEAR(y[size_t(o)], ref, 2e-6 * mag) << "column " << o;
    }
}

}  // namespace
}  // namespace folio::cpu
