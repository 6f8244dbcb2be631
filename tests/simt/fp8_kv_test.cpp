// The FP8 KV cache in the CUDA kernels against the CPU: rope_write_kv stores fp8(x / scale) (V bit for
// bit, K within one code of the CPU's rotation), the calibration pass measures max |K| and |V| and
// sets the scales, copy-on-write copies FP8 blocks, and decode and prefill attention (CUDA cores and
// tensor cores) over FP8 pools match cpu::paged_attention over pools holding the decoded values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "engine/core/fp8.h"
#include "engine/cpu/ops.h"
#include "engine/model/rope.h"
#include "kernels/attention.h"
#include "kernels/rope_kv.h"
#include "support/simt_test_util.h"

namespace folio::cuda {
namespace {

using test::DeviceArray;

uint8_t encode(float x, bool e5m2) { return e5m2 ? f32_to_fp8_e5m2(x) : f32_to_fp8_e4m3(x); }
float decode(uint8_t c, bool e5m2) { return e5m2 ? fp8_e5m2_to_f32(c) : fp8_e4m3_to_f32(c); }

// Pools of FP8 codes with their decoded fp32 copies (the CPU reference's pools), one block table per
// sequence drawn from a shuffled pool.
struct Fp8Pools {
    KvLayout layout;
    bool e5m2;
    float ks, vs;
    std::vector<uint8_t> kc, vc;
    std::vector<float> kf, vf;
    std::vector<std::vector<int32_t>> tables;
    int max_blocks = 1;
    DeviceArray<uint8_t> dk, dv;
    DeviceArray<int32_t> dtables;
    DeviceArray<float> dscales;

    Fp8Pools(int kv_heads, int head_dim, const std::vector<int>& lens, bool e5, uint64_t seed) : e5m2(e5), ks(0.02f), vs(0.005f) {
        layout.num_layers = 1;
        layout.num_kv_heads = kv_heads;
        layout.head_dim = head_dim;
        layout.block_size = 16;
        layout.dtype = e5m2 ? KvCacheDtype::Fp8E5M2 : KvCacheDtype::Fp8E4M3;
        int needed = 0;
        for (int len : lens) {
            needed += (len + 15) / 16;
            max_blocks = std::max(max_blocks, (len + 15) / 16);
        }
        layout.num_blocks = needed + 2;
        const size_t n = size_t(layout.num_blocks * layout.block_elems());
        const auto k = test::random_floats(n, -2, 2, seed), v = test::random_floats(n, -1, 1, seed + 1);
        for (size_t i = 0; i < n; ++i) {
            kc.push_back(encode(k[i] / ks, e5m2));
            vc.push_back(encode(v[i] / vs, e5m2));
            kf.push_back(decode(kc.back(), e5m2) * ks);
            vf.push_back(decode(vc.back(), e5m2) * vs);
        }
        std::vector<int32_t> ids(size_t(layout.num_blocks));
        std::iota(ids.begin(), ids.end(), 0);
        std::shuffle(ids.begin(), ids.end(), std::mt19937_64(seed + 2));
        size_t next = 0;
        std::vector<int32_t> flat;
        for (int len : lens) {
            std::vector<int32_t> t;
            for (int b = 0; b < (len + 15) / 16; ++b) t.push_back(ids[next++]);
            tables.push_back(t);
            t.resize(size_t(max_blocks), -1);
            flat.insert(flat.end(), t.begin(), t.end());
        }
        dk = DeviceArray<uint8_t>(kc);
        dv = DeviceArray<uint8_t>(vc);
        dtables = DeviceArray<int32_t>(flat);
        dscales = DeviceArray<float>(std::vector<float>{ks, vs});
    }
    PagedKv view() const {
        PagedKv p;
        p.k_pool = dk.get();
        p.v_pool = dv.get();
        p.dtype = layout.dtype;
        p.k_scale = dscales.get();
        p.v_scale = dscales.get() + 1;
        p.num_kv_heads = layout.num_kv_heads;
        p.head_dim = layout.head_dim;
        p.block_size = 16;
        p.block_tables = dtables.get();
        p.max_blocks_per_seq = max_blocks;
        return p;
    }
};

TEST(SimtFp8Kv, DecodeAttentionMatchesCpuOnDecodedPools) {
    struct Case {
        int heads, kv_heads, head_dim, partition;
        std::vector<int> lens;
    };
    const Case cases[] = {{8, 4, 8, 512, {1, 17, 40}}, {8, 2, 64, 32, {100, 5}}, {4, 2, 128, 512, {33}}};
    uint64_t seed = 1;
    for (bool e5m2 : {false, true})
        for (const auto& c : cases) {
            SCOPED_TRACE("dim " + std::to_string(c.head_dim) + (e5m2 ? " e5m2" : " e4m3"));
            Fp8Pools f(c.kv_heads, c.head_dim, c.lens, e5m2, seed);
            seed += 7;
            const int S = int(c.lens.size()), q_width = c.heads * c.head_dim;
            const auto q = test::round_to_half(test::random_floats(size_t(S) * q_width, -1.5f, 1.5f, seed++));
            const float scale = 1.0f / std::sqrt(float(c.head_dim));
            std::vector<float> expect(q.size());
            for (int s = 0; s < S; ++s)
                cpu::paged_attention(&q[size_t(s) * q_width], &expect[size_t(s) * q_width], 1, c.lens[size_t(s)] - 1, c.heads, f.layout,
                                     f.kf.data(), f.vf.data(), f.tables[size_t(s)].data(), scale);
            int parts = 1;
            for (int len : c.lens) parts = std::max(parts, (len + c.partition - 1) / c.partition);
            std::vector<int32_t> rows(static_cast<size_t>(S));
            std::iota(rows.begin(), rows.end(), 0);
            DeviceArray<__half> dq(test::to_half(q)), dout(q.size());
            DeviceArray<int32_t> drows(rows), dlens(c.lens);
            DeviceArray<float> work(decode_attention_workspace_floats(S, c.heads, c.head_dim, parts) + 1);
            dout.poison();
            DecodeAttention a;
            a.q = dq.get();
            a.q_stride = q_width;
            a.out = dout.get();
            a.out_stride = q_width;
            a.q_rows = drows.get();
            a.seq_lens = dlens.get();
            a.num_seqs = S;
            a.num_heads = c.heads;
            a.scale = scale;
            a.partition_size = c.partition;
            a.max_partitions = parts;
            a.workspace = work.get();
            decode_attention(a, f.view(), nullptr);
            EXPECT_TRUE(test::all_close(test::from_half(dout.download()), expect, 2e-3f, 5e-3f));
        }
}

TEST(SimtFp8Kv, PrefillAttentionMatchesCpuOnDecodedPools) {
    struct Case {
        int heads, kv_heads, head_dim;
        int before, num_q;
    };
    // head_dim 8 and 256 run on CUDA cores, 64 and 128 on tensor cores.
    const Case cases[] = {{8, 4, 8, 20, 33}, {8, 2, 64, 3, 70}, {4, 2, 128, 31, 9}, {4, 4, 256, 10, 5}};
    uint64_t seed = 30;
    for (bool e5m2 : {false, true})
        for (const auto& c : cases) {
            SCOPED_TRACE("dim " + std::to_string(c.head_dim) + (e5m2 ? " e5m2" : " e4m3"));
            Fp8Pools f(c.kv_heads, c.head_dim, {c.before + c.num_q}, e5m2, seed);
            seed += 7;
            const int q_width = c.heads * c.head_dim;
            const auto q = test::round_to_half(test::random_floats(size_t(c.num_q) * q_width, -1.5f, 1.5f, seed++));
            const float scale = 1.0f / std::sqrt(float(c.head_dim));
            std::vector<float> expect(q.size());
            cpu::paged_attention(q.data(), expect.data(), c.num_q, c.before, c.heads, f.layout, f.kf.data(), f.vf.data(), f.tables[0].data(),
                                 scale);
            std::vector<int32_t> tile_seq, tile_q0;
            for (int q0 = 0; q0 < c.num_q; q0 += prefill_tile_rows(c.head_dim)) {
                tile_seq.push_back(0);
                tile_q0.push_back(q0);
            }
            DeviceArray<__half> dq(test::to_half(q)), dout(q.size());
            DeviceArray<int32_t> dqrow(std::vector<int32_t>{0}), dnumq(std::vector<int32_t>{c.num_q}),
                dbefore(std::vector<int32_t>{c.before}), dts(tile_seq), dtq(tile_q0);
            dout.poison();
            PrefillAttention a;
            a.q = dq.get();
            a.q_stride = q_width;
            a.out = dout.get();
            a.out_stride = q_width;
            a.num_heads = c.heads;
            a.scale = scale;
            a.seq_q_row = dqrow.get();
            a.seq_num_q = dnumq.get();
            a.seq_context_before = dbefore.get();
            a.tile_seq = dts.get();
            a.tile_q0 = dtq.get();
            a.num_tiles = int(tile_seq.size());
            prefill_attention(a, f.view(), nullptr);
            EXPECT_TRUE(test::all_close(test::from_half(dout.download()), expect, 2e-3f, 5e-3f));
        }
}

TEST(SimtFp8Kv, RopeWritesCodesAndCalibrationMeasures) {
    // head_dim 128: a block holds two heads, so one block mixes a Q and a K head (measured: only
    // K) and K and V heads are measured in several blocks of the same token.
    struct Shape { int heads, kv_heads, hd; };
    for (const Shape shape : {Shape{4, 2, 16}, Shape{3, 3, 128}}) {
        SCOPED_TRACE("head_dim " + std::to_string(shape.hd));
        const int heads = shape.heads, kv_heads = shape.kv_heads, hd = shape.hd, T = 5;
        KvLayout layout;
        layout.num_layers = 1;
        layout.num_kv_heads = kv_heads;
        layout.head_dim = hd;
        layout.block_size = 16;
        layout.num_blocks = 2;
        const int qkv_width = (heads + 2 * kv_heads) * hd;
        const auto qkv = test::round_to_half(test::random_floats(size_t(T) * qkv_width, -3, 3, 9));
        const std::vector<int32_t> positions = {0, 1, 2, 3, 4}, slots = {16, 17, 18, 19, 20};  // block 1
        ModelConfig cfg;
        cfg.head_dim = hd;
        cfg.rope_theta = 10000.0f;
        const auto inv = rope_inv_freq(cfg);
        // The CPU's rotated K and V of every token.
        std::vector<float> k(size_t(T) * kv_heads * hd), v(k.size());
        for (int t = 0; t < T; ++t) {
            std::copy_n(&qkv[size_t(t) * qkv_width + size_t(heads) * hd], kv_heads * hd, &k[size_t(t) * kv_heads * hd]);
            std::copy_n(&qkv[size_t(t) * qkv_width + size_t(heads + kv_heads) * hd], kv_heads * hd, &v[size_t(t) * kv_heads * hd]);
        }
        cpu::rope(k.data(), T, kv_heads, hd, positions.data(), inv.data());
        float kmax = 0, vmax = 0;
        for (float x : k) kmax = std::max(kmax, std::fabs(x));
        for (float x : v) vmax = std::max(vmax, std::fabs(x));

        for (bool e5m2 : {false, true}) {
            SCOPED_TRACE(e5m2 ? "e5m2" : "e4m3");
            DeviceArray<__half> dqkv(test::to_half(qkv));
            DeviceArray<int32_t> dpos(positions), dslots(slots);
            DeviceArray<float> dinv(inv), scales(std::vector<float>{1.0f, 1.0f}), amax(2);
            const size_t pool = size_t(layout.num_blocks * layout.block_elems());
            DeviceArray<uint8_t> kp(pool), vp(pool);
            kp.upload(std::vector<uint8_t>(pool, 0xAB));
            vp.upload(std::vector<uint8_t>(pool, 0xAB));
            amax.upload({0.0f, 0.0f});
            KvWriteTarget w;
            w.k_pool = kp.get();
            w.v_pool = vp.get();
            w.dtype = e5m2 ? KvCacheDtype::Fp8E5M2 : KvCacheDtype::Fp8E4M3;
            w.k_scale = scales.get();
            w.v_scale = scales.get() + 1;
            KvWriteTarget m = w;
            m.amax = amax.get();
            rope_write_kv(dqkv.get(), dpos.get(), dinv.get(), dslots.get(), m, T, heads, kv_heads, hd, 16, nullptr);
            const auto am = amax.download();
            EXPECT_NEAR(am[0], kmax, 1e-5f * kmax);  // sin/cos may differ by an ulp from the CPU's
            EXPECT_EQ(am[1], vmax);
            EXPECT_EQ(kp.download(), std::vector<uint8_t>(pool, 0xAB)) << "measuring wrote the pool";
            EXPECT_EQ(test::from_half(dqkv.download()), qkv) << "measuring rotated Q";
            kv_scales_from_amax(amax.get(), scales.get(), scales.get() + 1, nullptr);
            const auto sc = scales.download();
            EXPECT_EQ(sc[0], am[0] / 200.0f);
            EXPECT_EQ(sc[1], am[1] / 100.0f);
            rope_write_kv(dqkv.get(), dpos.get(), dinv.get(), dslots.get(), w, T, heads, kv_heads, hd, 16, nullptr);
            const auto kc = kp.download(), vc = vp.download();
            for (int t = 0; t < T; ++t)
                for (int h = 0; h < kv_heads; ++h)
                    for (int d = 0; d < hd; ++d) {
                        const size_t off = size_t(layout.offset(1, h, t)) + size_t(d);
                        const size_t src = (size_t(t) * kv_heads + size_t(h)) * hd + size_t(d);
                        ASSERT_EQ(vc[off], encode(v[src] / sc[1], e5m2)) << t << " " << h << " " << d;
                        const float got = decode(kc[off], e5m2), want = decode(encode(k[src] / sc[0], e5m2), e5m2);
                        ASSERT_LE(std::fabs(got - want), std::fabs(want) * (e5m2 ? 0.26f : 0.13f) + 1e-6f) << t << " " << h << " " << d;
                    }
            EXPECT_EQ(kc[0], 0xAB);  // block 0 untouched
        }
    }
}

TEST(SimtFp8Kv, CopyOnWriteCopiesFp8Blocks) {
    const int blocks = 5;
    const int64_t block_bytes = 2 * 16 * 8;  // two heads, 16 slots, head_dim 8, one byte each
    std::vector<std::vector<uint8_t>> host;
    std::vector<DeviceArray<uint8_t>> pools;
    for (int p = 0; p < 4; ++p) {
        std::vector<uint8_t> h(size_t(blocks * block_bytes));
        for (size_t i = 0; i < h.size(); ++i) h[i] = uint8_t((i * 31 + size_t(p) * 7) & 0x7E);
        host.push_back(h);
        pools.emplace_back(h);
    }
    std::vector<void*> ptrs;
    for (auto& p : pools) ptrs.push_back(p.get());
    DeviceArray<void*> dptrs(ptrs);
    DeviceArray<int32_t> pairs(std::vector<int32_t>{4, 0, 1, 3});
    copy_kv_blocks(dptrs.get(), 4, pairs.get(), 2, block_bytes, nullptr);
    for (int p = 0; p < 4; ++p) {
        auto expect = host[size_t(p)];
        std::copy_n(host[size_t(p)].begin() + 4 * block_bytes, block_bytes, expect.begin());
        std::copy_n(host[size_t(p)].begin() + 1 * block_bytes, block_bytes, expect.begin() + 3 * block_bytes);
        EXPECT_EQ(pools[size_t(p)].download(), expect) << "pool " << p;
    }
}

}  // namespace
}  // namespace folio::cuda
