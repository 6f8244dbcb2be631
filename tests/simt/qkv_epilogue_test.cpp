// The steps some families add between the fused q|k|v product and RoPE (Qwen2's biases, Qwen3's
// per-head q/k norms) and the padded-vocabulary mask on the logits, against the CPU backend's exact
// arithmetic (engine/cpu/ops.h; the bias add and the mask as engine/cpu/cpu_backend.cpp does them).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/core/error.h"
#include "engine/cpu/ops.h"
#include "kernels/qkv_epilogue.h"
#include "kernels/sampling.h"
#include "support/simt_test_util.h"

namespace folio::cuda {
namespace {

using test::DeviceArray;

struct QkvShape {
    int tokens, heads, kv_heads, head_dim;
    int width() const { return (heads + 2 * kv_heads) * head_dim; }
};

TEST(SimtQkvBias, AddsTheBiasToEveryTokenRow) {
    uint64_t seed = 40;
    for (const QkvShape s : {QkvShape{1, 2, 1, 8}, QkvShape{5, 14, 2, 64}, QkvShape{3, 4, 4, 80}}) {
        SCOPED_TRACE("tokens " + std::to_string(s.tokens) + " width " + std::to_string(s.width()));
        const size_t n = size_t(s.tokens) * s.width();
        const auto qkv = test::round_to_half(test::random_floats(n, -2, 2, seed++));
        const auto bias = test::random_floats(size_t(s.width()), -1, 1, seed++);
        std::vector<float> expect = qkv;
        for (int t = 0; t < s.tokens; ++t)
            for (int i = 0; i < s.width(); ++i) expect[size_t(t) * s.width() + i] += bias[size_t(i)];
        test::for_each_schedule([&](const char*) {
            DeviceArray<__half> dqkv(test::to_half(qkv));
            DeviceArray<float> db(bias);
            qkv_bias_add(dqkv.get(), db.get(), s.tokens, s.width(), nullptr);
            EXPECT_TRUE(test::all_close(test::from_half(dqkv.download()), expect, 2e-3f, 2e-3f));
        });
    }
}

TEST(SimtQkHeadNorm, NormalisesEveryQAndKHeadAndLeavesV) {
    uint64_t seed = 50;
    // head_dim 8 (tiny fixtures), 64, 128 (Qwen3-8B), 256 (the kernel's widest), 80 (not a multiple of 32).
    for (const QkvShape s : {QkvShape{3, 4, 2, 8}, QkvShape{2, 4, 1, 64}, QkvShape{4, 32, 8, 128}, QkvShape{1, 2, 2, 256},
                             QkvShape{2, 3, 3, 80}}) {
        SCOPED_TRACE("tokens " + std::to_string(s.tokens) + " head_dim " + std::to_string(s.head_dim));
        const size_t n = size_t(s.tokens) * s.width();
        const auto qkv = test::round_to_half(test::random_floats(n, -3, 3, seed++));
        const auto qw = test::random_floats(size_t(s.head_dim), 0.5f, 1.5f, seed++);
        const auto kw = test::random_floats(size_t(s.head_dim), 0.5f, 1.5f, seed++);
        std::vector<float> weights = qw;
        weights.insert(weights.end(), kw.begin(), kw.end());
        std::vector<float> expect = qkv;
        for (int t = 0; t < s.tokens; ++t) {
            float* row = expect.data() + size_t(t) * s.width();
            cpu::rms_norm(row, qw.data(), row, s.heads, s.head_dim, 1e-6f);
            cpu::rms_norm(row + size_t(s.heads) * s.head_dim, kw.data(), row + size_t(s.heads) * s.head_dim, s.kv_heads, s.head_dim,
                          1e-6f);
        }
        test::for_each_schedule([&](const char*) {
            DeviceArray<__half> dqkv(test::to_half(qkv));
            DeviceArray<float> dw(weights);
            qk_head_norm(dqkv.get(), dw.get(), dw.get() + s.head_dim, s.tokens, s.heads, s.kv_heads, s.head_dim, 1e-6f, nullptr);
            const auto got = test::from_half(dqkv.download());
            EXPECT_TRUE(test::all_close(got, expect, 2e-3f, 2e-3f));
            for (int t = 0; t < s.tokens; ++t) {  // v exactly as it was
                const size_t v0 = size_t(t) * s.width() + size_t(s.heads + s.kv_heads) * s.head_dim;
                for (size_t i = v0; i < v0 + size_t(s.kv_heads) * s.head_dim; ++i) ASSERT_EQ(got[i], qkv[i]) << "v element " << i;
            }
        });
    }
}

TEST(SimtQkHeadNorm, RefusesHeadsWiderThanTheKernel) {
    DeviceArray<__half> dqkv(size_t(3) * 264);
    DeviceArray<float> dw(size_t(2) * 264);
    EXPECT_THROW(qk_head_norm(dqkv.get(), dw.get(), dw.get() + 264, 1, 1, 1, 264, 1e-6f, nullptr), Error);
}

TEST(SimtMaskPaddedVocab, SetsOnlyThePaddedIdsOfEveryRowToMinusInfinity) {
    const int vocab = 1000, rows = 3;
    const auto logits = test::random_floats(size_t(vocab) * rows, -5, 5, 60);
    for (const int from : {vocab, 997, 1, 0}) {
        SCOPED_TRACE("from " + std::to_string(from));
        std::vector<float> expect = logits;
        for (int r = 0; r < rows; ++r)
            for (int i = from; i < vocab; ++i) expect[size_t(r) * vocab + i] = -std::numeric_limits<float>::infinity();
        DeviceArray<float> d(logits);
        mask_padded_vocab(d.get(), vocab, rows, from, nullptr);
        EXPECT_EQ(d.download(), expect);
    }
}

}  // namespace
}  // namespace folio::cuda
