// The CPU FP8 kernels against their definitions: the W8A16 product equals dense_rows on the
// dequantized fp32 matrix bit for bit (every instruction set, every batch size, odd row ranges), the
// SIMD decoder agrees with engine/core/fp8.h on all 256 codes, and attention over FP8 KV pools equals
// attention over fp32 pools holding the decoded values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "engine/core/fp8.h"
#include "engine/cpu/kernels.h"
#include "engine/kv/kv_layout.h"

namespace folio::cpu {
namespace {

const char* const kIsas[] = {"generic", "avx2", "avx512", "amx"};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

float decode(uint8_t c, DType t) { return t == DType::F8_E5M2 ? fp8_e5m2_to_f32(c) : fp8_e4m3_to_f32(c); }
uint8_t encode(float v, DType t) { return t == DType::F8_E5M2 ? f32_to_fp8_e5m2(v) : f32_to_fp8_e4m3(v); }

TEST(Fp8Kernel, W8A16EqualsDenseOnTheDequantizedMatrixBitForBit) {
    std::mt19937 rng(11);
    std::normal_distribution<float> nd;
    for (DType dt : {DType::F8_E4M3, DType::F8_E5M2})
        for (auto [in, out] : {std::pair{1, 3}, {15, 9}, {16, 17}, {37, 11}, {172, 64}, {2048, 19}}) {
            std::vector<uint8_t> codes(size_t(in) * out);
            std::vector<float> scales(static_cast<size_t>(out)), deq(codes.size());
            for (int o = 0; o < out; ++o) {
                scales[size_t(o)] = std::ldexp(0.75f + 0.5f * float(rng() % 1000) / 1000.0f, -int(rng() % 12));
                for (int i = 0; i < in; ++i) {
                    const size_t k = size_t(o) * in + i;
                    codes[k] = encode(nd(rng) * 40.0f, dt);  // spread over normals and subnormals
                    deq[k] = decode(codes[k], dt) * scales[size_t(o)];
                }
            }
            const Fp8Matrix w{dt, out, in, codes.data(), scales.data(), 0.0f};
            const DenseMatrix d{DType::F32, out, in, deq.data()};
            for (int m : {1, 2, 5, 17}) {
                std::vector<float> x(size_t(m) * in);
                for (auto& v : x) v = nd(rng);
                for (const char* isa : kIsas) {
                    const KernelTable* k = kernels_for(isa);
                    if (!k) continue;
                    std::vector<float> ref(size_t(m) * out, NAN), got(ref.size(), NAN);
                    k->dense_rows(d, 0, out, x.data(), m, ref.data());
                    k->fp8_rows(w, 0, out, x.data(), m, got.data());
                    EXPECT_TRUE(same_bits(got, ref)) << isa << " " << dtype_name(dt) << " in " << in << " out " << out << " m " << m;
                    // Odd row ranges, one token at a time: the same bits.
                    for (int t = 0; t < m; t += 3) {
                        std::vector<float> y1(static_cast<size_t>(out), NAN);
                        for (int r = 0; r < out; r += 5) k->fp8_rows(w, r, std::min(out, r + 5), x.data() + size_t(t) * in, 1, y1.data());
                        EXPECT_EQ(std::memcmp(y1.data(), got.data() + size_t(t) * out, size_t(out) * sizeof(float)), 0)
                            << isa << " in " << in << " token " << t;
                    }
                }
            }
        }
}

TEST(Fp8Kernel, SimdDecoderAgreesWithCoreOnEveryCode) {
    // Through fp8_rows with one row of all 256 codes times scale 1, against x = unit vectors: each
    // output is one decoded code (NaN codes stay NaN, with their sign).
    for (DType dt : {DType::F8_E4M3, DType::F8_E5M2}) {
        std::vector<uint8_t> codes(256 * 256, 0);
        std::vector<float> scales(256, 1.0f);
        for (int o = 0; o < 256; ++o) codes[size_t(o) * 256 + size_t(o)] = uint8_t(o);
        const Fp8Matrix w{dt, 256, 256, codes.data(), scales.data(), 0.0f};
        std::vector<float> x(256 * 256, 0.0f);
        for (int t = 0; t < 256; ++t) x[size_t(t) * 256 + size_t(t)] = 1.0f;
        for (const char* isa : kIsas) {
            const KernelTable* k = kernels_for(isa);
            if (!k) continue;
            std::vector<float> y(256 * 256);
            k->fp8_rows(w, 0, 256, x.data(), 256, y.data());
            for (int c = 0; c < 256; ++c) {
                const float want = decode(uint8_t(c), dt), got = y[size_t(c) * 256 + size_t(c)];
                if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << isa << " code " << c;
                else EXPECT_EQ(got, want) << isa << " " << dtype_name(dt) << " code " << c;
            }
        }
    }
}

TEST(Fp8Kernel, AttentionOverFp8PoolsEqualsAttentionOverDecodedPools) {
    std::mt19937 rng(5);
    std::normal_distribution<float> nd;
    for (bool e5m2 : {false, true})
        for (int hd : {8, 24, 64, 128}) {
            KvLayout layout{1, 2, hd, 16, 6};
            const size_t n = size_t(layout.num_blocks * layout.block_elems());
            std::vector<uint8_t> kc(n), vc(n);
            std::vector<float> kf(n), vf(n);
            const float ks = 0.05f, vs = 0.0125f;
            const DType dt = e5m2 ? DType::F8_E5M2 : DType::F8_E4M3;
            for (size_t i = 0; i < n; ++i) {
                kc[i] = encode(nd(rng) / ks, dt);
                vc[i] = encode(nd(rng) / vs, dt);
                kf[i] = decode(kc[i], dt) * ks;
                vf[i] = decode(vc[i], dt) * vs;
            }
            const std::vector<int32_t> table = {4, 0, 5, 2, 1, 3};
            const Fp8KvPools pools{kc.data(), vc.data(), ks, vs, e5m2};
            constexpr int kRows = 6;
            std::vector<float> q(size_t(kRows) * hd);
            for (auto& v : q) v = nd(rng);
            const float* qp[kRows];
            float* op[kRows];
            float* rp[kRows];
            int first[kRows], keys[kRows];
            std::vector<float> out(q.size(), NAN), ref(q.size(), NAN), scores(size_t(kRows) * 96);
            for (int r = 0; r < kRows; ++r) {
                qp[r] = q.data() + size_t(r) * hd;
                op[r] = out.data() + size_t(r) * hd;
                rp[r] = ref.data() + size_t(r) * hd;
                keys[r] = 70 + 5 * r;
                first[r] = r % 2 ? 9 : 0;  // some rows under a window
            }
            for (const char* isa : kIsas) {
                const KernelTable* k = kernels_for(isa);
                if (!k) continue;
                for (int kv_head : {0, 1}) {
                    k->attention_rows(qp, rp, first, keys, kRows, kv_head, layout, kf.data(), vf.data(), table.data(), 0.3f, scores.data());
                    k->attention_rows_fp8(qp, op, first, keys, kRows, kv_head, layout, pools, table.data(), 0.3f, scores.data());
                    EXPECT_TRUE(same_bits(out, ref)) << isa << " head_dim " << hd << (e5m2 ? " e5m2" : " e4m3");
                    for (int r = 0; r < kRows; ++r) {
                        std::vector<float> one(static_cast<size_t>(hd), NAN);
                        k->attention_row_fp8(qp[r], one.data(), first[r], keys[r], kv_head, layout, pools, table.data(), 0.3f, scores.data());
                        EXPECT_EQ(std::memcmp(one.data(), rp[r], sizeof(float) * size_t(hd)), 0) << isa << " row " << r;
                    }
                }
            }
        }
}

}  // namespace
}  // namespace folio::cpu
