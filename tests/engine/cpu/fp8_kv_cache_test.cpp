// The CPU backend's FP8 KV cache: four times the blocks of the fp32 cache in the same memory (what
// the engine's stats and folio-bench report), codes written as fp8(x / scale) with the checkpoint's
// scales, 1.0, or scales calibrated from the first batch, whole blocks copied on write, and a clear
// error for a head size the kernels do not take.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/backend/forward_batch.h"
#include "engine/core/error.h"
#include "engine/core/fp8.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/cpu/cpu_kv_cache.h"
#include "engine/model/model.h"
#include "engine/runtime/engine_core.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

std::shared_ptr<const Model> stories() {
    static std::shared_ptr<const Model> m = load_model(test::fixture_path("models/stories260K"));
    return m;
}

KvLayout layout_of(const Model& m, KvCacheDtype dtype, int64_t blocks) {
    KvLayout l;
    l.num_layers = m.config.num_layers;
    l.num_kv_heads = m.config.num_kv_heads;
    l.head_dim = m.config.head_dim;
    l.block_size = 16;
    l.num_blocks = blocks;
    l.dtype = dtype;
    return l;
}

TEST(Fp8KvCache, TheSameMemoryHoldsFourTimesTheBlocks) {
    const auto m = stories();
    auto backend = make_cpu_backend(*m, {});
    const uint64_t budget = 8 << 20;
    const int64_t fp32 = backend->plan_kv_blocks(layout_of(*m, KvCacheDtype::Auto, 0), budget, 1);
    const int64_t fp8 = backend->plan_kv_blocks(layout_of(*m, KvCacheDtype::Fp8E4M3, 0), budget, 1);
    EXPECT_GE(fp8, 4 * fp32);  // both round down
    EXPECT_LT(fp8, 4 * (fp32 + 1));
    EXPECT_EQ(backend->kv_bytes_per_block(layout_of(*m, KvCacheDtype::Fp8E5M2, 0)), size_t(2 * 5 * 4 * 16 * 8));  // K+V, layers, heads, slots, dims

    // Through the engine: the pool the scheduler gets, and what the monitor shows.
    for (KvCacheDtype kv : {KvCacheDtype::Auto, KvCacheDtype::Fp8E4M3}) {
        EngineOptions o;
        o.kv_cache_bytes = budget;
        o.kv_cache_dtype = kv;
        EngineCore core(m, make_cpu_backend(*m, {}), o);
        const EngineStats s = core.stats();
        EXPECT_EQ(s.kv.blocks_total, kv == KvCacheDtype::Auto ? fp32 : fp8);
        EXPECT_EQ(s.kv_cache_dtype, kv == KvCacheDtype::Auto ? "fp32" : "fp8_e4m3");
        EXPECT_EQ(s.kv_bytes_per_block, kv == KvCacheDtype::Auto ? 4 * 5120u : 5120u);
        EXPECT_EQ(s.memory.kv_cache, uint64_t(s.kv.blocks_total) * s.kv_bytes_per_block);
        EXPECT_LE(s.memory.kv_cache, budget);
    }
}

// One sequence of `n` tokens written at positions 0..n-1 through blocks {3, 1, ...}.
struct Step {
    std::vector<SeqSlice> seqs;
    std::vector<int32_t> table{3, 1, 0, 2};
    explicit Step(int n) {
        SeqSlice s;
        s.num_tokens = n;
        s.num_blocks = (n + 15) / 16;
        seqs.push_back(s);
    }
};

TEST(Fp8KvCache, WritesCodesWithTheLayerScalesOrCalibratedOnes) {
    const auto m = stories();
    ModelWeights w = m->weights;
    w.layers[2].k_scale = 0.5f;
    w.layers[2].v_scale = 0.25f;
    const KvLayout l = layout_of(*m, KvCacheDtype::Fp8E4M3, 4);
    const int row = l.num_kv_heads * l.head_dim, n = 20;
    std::vector<float> k(size_t(n) * row), v(k.size());
    for (size_t i = 0; i < k.size(); ++i) {
        k[i] = std::sin(float(i)) * 3.0f;
        v[i] = std::cos(float(i)) * 0.7f;
    }
    k[77] = -12.5f;  // the largest |K|
    v[5] = 2.0f;     // the largest |V|
    const Step step(n);
    cpu::KvCache fixed;
    fixed.allocate(l, w, false);
    fixed.write(2, k.data(), v.data(), step.seqs, step.table.data());
    EXPECT_EQ(fixed.k_scale(2), 0.5f);
    EXPECT_EQ(fixed.k_scale(1), 1.0f);

    cpu::KvCache cal;
    cal.allocate(l, w, true);
    cal.write(2, k.data(), v.data(), step.seqs, step.table.data());
    EXPECT_EQ(cal.k_scale(2), 12.5f / 200.0f);
    EXPECT_EQ(cal.v_scale(2), 2.0f / 100.0f);
    // Later batches keep the first batch's scales.
    std::vector<float> big(k.size(), 100.0f);
    cal.write(2, big.data(), big.data(), step.seqs, step.table.data());
    EXPECT_EQ(cal.k_scale(2), 12.5f / 200.0f);

    // The attention over the cache sees exactly code * scale: compare with fp32 pools of those values.
    const auto decoded_attention = [&](const cpu::KvCache& cache, float ks, float vs) {
        KvLayout f = l;
        f.dtype = KvCacheDtype::Auto;
        cpu::KvCache ref;
        ref.allocate(f, w, false);
        std::vector<float> kd(k.size()), vd(v.size());
        for (size_t i = 0; i < k.size(); ++i) {
            kd[i] = fp8_e4m3_to_f32(f32_to_fp8_e4m3(k[i] / ks)) * ks;
            vd[i] = fp8_e4m3_to_f32(f32_to_fp8_e4m3(v[i] / vs)) * vs;
        }
        ref.write(2, kd.data(), vd.data(), step.seqs, step.table.data());
        std::vector<float> q(size_t(l.head_dim), 0.3f), a(q.size()), b(q.size()), scores(64);
        const float* qp[1] = {q.data()};
        float* ap[1] = {a.data()};
        float* bp[1] = {b.data()};
        const int first[1] = {0}, keys[1] = {n};
        cache.attention_rows(2, qp, ap, first, keys, 1, 1, step.table.data(), 0.35f, scores.data());
        ref.attention_rows(2, qp, bp, first, keys, 1, 1, step.table.data(), 0.35f, scores.data());
        EXPECT_EQ(a, b);
    };
    decoded_attention(fixed, 0.5f, 0.25f);
}

TEST(Fp8KvCache, CopyOnWriteCopiesWholeBlocks) {
    const auto m = stories();
    const KvLayout l = layout_of(*m, KvCacheDtype::Fp8E5M2, 4);
    cpu::KvCache c;
    c.allocate(l, m->weights, false);
    const int row = l.num_kv_heads * l.head_dim;
    std::vector<float> k(size_t(16) * row), v(k.size());
    for (size_t i = 0; i < k.size(); ++i) k[i] = v[i] = 0.01f * float(i % 97) - 0.4f;
    Step step(16);
    step.table = {3};
    for (int layer = 0; layer < l.num_layers; ++layer) c.write(layer, k.data(), v.data(), step.seqs, step.table.data());
    c.copy_blocks({{3, 0}});
    std::vector<float> q(size_t(l.head_dim), 0.2f), a(q.size()), b(q.size()), scores(32);
    const float* qp[1] = {q.data()};
    float* ap[1] = {a.data()};
    float* bp[1] = {b.data()};
    const int first[1] = {0}, keys[1] = {16};
    const int32_t from[1] = {3}, to[1] = {0};
    for (int layer = 0; layer < l.num_layers; ++layer) {
        c.attention_rows(layer, qp, ap, first, keys, 1, 2, from, 0.35f, scores.data());
        c.attention_rows(layer, qp, bp, first, keys, 1, 2, to, 0.35f, scores.data());
        EXPECT_EQ(a, b) << "layer " << layer;
    }
}

TEST(Fp8KvCache, HeadSizesBeyondTheKernelsAreRefused) {
    const auto m = stories();
    KvLayout l = layout_of(*m, KvCacheDtype::Fp8E4M3, 1);
    l.head_dim = 1024;
    cpu::KvCache c;
    try {
        c.allocate(l, m->weights, false);
        ADD_FAILURE() << "allocated";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("head_dim up to 512"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace folio
