// RMSNorm (+ residual), embedding gather, SiLU*up, RoPE + KV write, KV block copy and dtype
// conversion against the CPU reference (engine/cpu/ops.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/cpu/ops.h"
#include "engine/model/rope.h"
#include "kernels/activation.h"
#include "kernels/convert.h"
#include "kernels/embedding.h"
#include "kernels/rms_norm.h"
#include "kernels/rope_kv.h"
#include "support/simt_test_util.h"

namespace folio::cuda {
namespace {

using test::DeviceArray;

struct NormCase {
    int rows, dim;
    bool delta, row_map;
};

TEST(SimtRmsNorm, MatchesCpuReferenceWithResidualAdd) {
    const NormCase cases[] = {{1, 64, false, false}, {7, 100, true, false}, {5, 1000, true, false},
                              {3, 96, true, true},   {4, 33, false, true}};
    uint64_t seed = 10;
    for (const auto& c : cases) {
        SCOPED_TRACE("rows " + std::to_string(c.rows) + " dim " + std::to_string(c.dim));
        const size_t n = size_t(c.rows) * c.dim;
        const auto residual = test::random_floats(n, -2, 2, seed++);
        const auto delta = test::round_to_half(test::random_floats(n, -1, 1, seed++));
        const auto weight = test::random_floats(size_t(c.dim), 0.5f, 1.5f, seed++);
        std::vector<int32_t> map;
        if (c.row_map) map = {int32_t(c.rows - 1), 0, int32_t(c.rows / 2)};
        const int num_out = c.row_map ? int(map.size()) : c.rows;

        std::vector<float> x = residual;
        if (c.delta)
            for (size_t i = 0; i < n; ++i) x[i] = residual[i] + delta[i];
        std::vector<float> normed(n);
        cpu::rms_norm(x.data(), weight.data(), normed.data(), c.rows, c.dim, 1e-5f);
        std::vector<float> expect(size_t(num_out) * c.dim);
        for (int i = 0; i < num_out; ++i) {
            const int r = c.row_map ? map[size_t(i)] : i;
            std::copy_n(normed.begin() + ptrdiff_t(r) * c.dim, c.dim, expect.begin() + ptrdiff_t(i) * c.dim);
        }

        test::for_each_schedule([&](const char*) {
            DeviceArray<float> dres(residual), dw(weight);
            DeviceArray<__half> ddelta(test::to_half(delta)), dout(expect.size());
            DeviceArray<int32_t> dmap(map);
            dout.poison();
            rms_norm(dres.get(), c.delta ? ddelta.get() : nullptr, dw.get(), dout.get(), c.row_map ? dmap.get() : nullptr,
                     num_out, c.dim, 1e-5f, nullptr);
            EXPECT_TRUE(test::all_close(test::from_half(dout.download()), expect, 2e-3f, 2e-3f));
            // The residual stream becomes x exactly, except for the final norm (row_map), which leaves it.
            const auto res_after = dres.download();
            EXPECT_EQ(res_after, (c.delta && !c.row_map) ? x : residual);
        });
    }
}

// Rows wide enough for the vector kernel to give a thread 2, 3 and 4 runs of four elements, and a
// wide one it cannot take (not whole runs of four: the scalar kernel).
TEST(SimtRmsNorm, WideRowsMatchCpuReference) {
    uint64_t seed = 40;
    for (int dim : {4096, 8200, 16384, 4098}) {
        SCOPED_TRACE("dim " + std::to_string(dim));
        const int rows = 2;
        const size_t n = size_t(rows) * dim;
        const auto residual = test::random_floats(n, -2, 2, seed++);
        const auto delta = test::round_to_half(test::random_floats(n, -1, 1, seed++));
        const auto weight = test::random_floats(size_t(dim), 0.5f, 1.5f, seed++);
        std::vector<float> x(n), expect(n);
        for (size_t i = 0; i < n; ++i) x[i] = residual[i] + delta[i];
        cpu::rms_norm(x.data(), weight.data(), expect.data(), rows, dim, 1e-5f);
        DeviceArray<float> dres(residual), dw(weight);
        DeviceArray<__half> ddelta(test::to_half(delta)), dout(n);
        dout.poison();
        rms_norm(dres.get(), ddelta.get(), dw.get(), dout.get(), nullptr, rows, dim, 1e-5f, nullptr);
        EXPECT_TRUE(test::all_close(test::from_half(dout.download()), expect, 2e-3f, 2e-3f));
        EXPECT_EQ(dres.download(), x);
    }
}

TEST(SimtRmsNorm, ARowGivesTheSameBitsAloneAndInABatch) {
    const int rows = 5, dim = 4096, pick = 3;
    const size_t n = size_t(rows) * dim;
    const auto residual = test::random_floats(n, -2, 2, 50);
    const auto delta = test::to_half(test::round_to_half(test::random_floats(n, -1, 1, 51)));
    const auto weight = test::random_floats(size_t(dim), 0.5f, 1.5f, 52);
    DeviceArray<float> dw(weight);
    DeviceArray<float> all_res(residual);
    DeviceArray<__half> all_delta(delta), all_out(n);
    rms_norm(all_res.get(), all_delta.get(), dw.get(), all_out.get(), nullptr, rows, dim, 1e-5f, nullptr);
    DeviceArray<float> one_res{std::vector<float>(residual.begin() + pick * dim, residual.begin() + (pick + 1) * dim)};
    DeviceArray<__half> one_delta{std::vector<__half>(delta.begin() + pick * dim, delta.begin() + (pick + 1) * dim)};
    DeviceArray<__half> one_out{size_t(dim)};
    rms_norm(one_res.get(), one_delta.get(), dw.get(), one_out.get(), nullptr, 1, dim, 1e-5f, nullptr);
    const auto a = test::from_half(all_out.download()), b = test::from_half(one_out.download());
    EXPECT_EQ(std::vector<float>(a.begin() + pick * dim, a.begin() + (pick + 1) * dim), b);
}

TEST(SimtEmbedding, GathersRowsExactly) {
    const int vocab = 37, dim = 72, T = 9;
    const auto table = test::round_to_half(test::random_floats(size_t(vocab) * dim, -1, 1, 3));
    const std::vector<int32_t> tokens = {0, 36, 5, 5, 17, 1, 36, 2, 9};
    DeviceArray<__half> dtable(test::to_half(table));
    DeviceArray<int32_t> dtok(tokens);
    DeviceArray<float> dout(size_t(T) * dim);
    dout.poison();
    embedding_gather(dtable.get(), dtok.get(), dout.get(), T, dim, nullptr);
    std::vector<float> expect(size_t(T) * dim);
    for (int t = 0; t < T; ++t) std::copy_n(table.begin() + ptrdiff_t(tokens[size_t(t)]) * dim, dim, expect.begin() + ptrdiff_t(t) * dim);
    EXPECT_EQ(dout.download(), expect);
}

TEST(SimtSiluMul, MatchesCpuReference) {
    for (const auto& [T, inter] : {std::pair{1, 172}, std::pair{6, 768}, std::pair{3, 77}}) {
        const auto gu = test::round_to_half(test::random_floats(size_t(T) * 2 * inter, -6, 6, uint64_t(T * inter)));
        std::vector<float> gate(size_t(T) * inter), up(size_t(T) * inter), expect(size_t(T) * inter);
        for (int t = 0; t < T; ++t)
            for (int i = 0; i < inter; ++i) {
                gate[size_t(t * inter + i)] = gu[size_t(t * 2 * inter + i)];
                up[size_t(t * inter + i)] = gu[size_t(t * 2 * inter + inter + i)];
            }
        cpu::silu_mul(gate.data(), up.data(), expect.data(), int64_t(expect.size()));
        DeviceArray<__half> dgu(test::to_half(gu)), dout(expect.size());
        dout.poison();
        silu_mul(dgu.get(), dout.get(), T, inter, nullptr);
        EXPECT_TRUE(test::all_close(test::from_half(dout.download()), expect, 1e-3f, 1e-3f));
    }
}

ModelConfig rope_config(int head_dim, bool llama3) {
    ModelConfig c;
    c.head_dim = head_dim;
    c.rope_theta = llama3 ? 500000.0f : 10000.0f;
    if (llama3) c.rope_scaling = RopeScaling{"llama3", 8.0f, 1.0f, 4.0f, 8192};
    return c;
}

struct RopeCase {
    int heads, kv_heads, head_dim, block_size;
    bool llama3;
};

TEST(SimtRopeKv, RotatesQAndWritesRotatedKAndVThroughTheSlotMapping) {
    // head_dim 80 and 96: a block's 128 threads hold 3 and 2 whole heads with threads to spare.
    const RopeCase cases[] = {{8, 4, 16, 16, false}, {4, 4, 8, 16, false}, {8, 1, 64, 8, true},
                              {6, 2, 128, 16, true}, {5, 1, 80, 16, false}, {4, 2, 96, 8, true}};
    uint64_t seed = 100;
    for (const auto& c : cases) {
        SCOPED_TRACE("heads " + std::to_string(c.heads) + "/" + std::to_string(c.kv_heads) + " dim " + std::to_string(c.head_dim));
        KvLayout layout;
        layout.num_layers = 1;
        layout.num_kv_heads = c.kv_heads;
        layout.head_dim = c.head_dim;
        layout.block_size = c.block_size;
        layout.num_blocks = 9;
        // Two sequences: a 13-token prefill chunk after 5 cached tokens and one decode token at 3000.
        const std::vector<int32_t> table_a = {7, 2, 5}, table_b = {1, 3, 0, 8, 4, 6};
        struct Seq { int before, tokens; const std::vector<int32_t>* table; };
        std::vector<Seq> seqs = {{5, 13, &table_a}, {int(table_b.size()) * c.block_size - 3, 1, &table_b}};
        const int T = 14 + 1;  // plus one padding row (slot -1)
        const int qkv_width = (c.heads + 2 * c.kv_heads) * c.head_dim;
        const auto qkv = test::round_to_half(test::random_floats(size_t(T) * qkv_width, -2, 2, seed++));
        std::vector<int32_t> positions, slots;
        for (const auto& s : seqs)
            for (int i = 0; i < s.tokens; ++i) {
                const int p = s.before + i;
                positions.push_back(p);
                slots.push_back((*s.table)[size_t(p / c.block_size)] * c.block_size + p % c.block_size);
            }
        positions.push_back(0);
        slots.push_back(-1);
        const auto inv_freq = rope_inv_freq(rope_config(c.head_dim, c.llama3));

        // Reference: split Q, K, V, rotate Q and K, write K and V through the block tables.
        const int qd = c.heads * c.head_dim, kd = c.kv_heads * c.head_dim;
        std::vector<float> q(size_t(T) * qd), k(size_t(T) * kd), v(size_t(T) * kd);
        for (int t = 0; t < T; ++t) {
            const float* row = &qkv[size_t(t) * qkv_width];
            std::copy_n(row, qd, &q[size_t(t) * qd]);
            std::copy_n(row + qd, kd, &k[size_t(t) * kd]);
            std::copy_n(row + qd + kd, kd, &v[size_t(t) * kd]);
        }
        cpu::rope(q.data(), T, c.heads, c.head_dim, positions.data(), inv_freq.data());
        cpu::rope(k.data(), T, c.kv_heads, c.head_dim, positions.data(), inv_freq.data());
        const size_t pool_elems = size_t(layout.num_blocks * layout.block_elems());
        std::vector<float> kref(pool_elems, NAN), vref(pool_elems, NAN);
        int off = 0;
        for (const auto& s : seqs) {
            cpu::write_kv(&k[size_t(off) * kd], &v[size_t(off) * kd], s.tokens, s.before, layout, kref.data(), vref.data(),
                          s.table->data());
            off += s.tokens;
        }

        DeviceArray<__half> dqkv(test::to_half(qkv)), kpool(pool_elems), vpool(pool_elems);
        DeviceArray<int32_t> dpos(positions), dslots(slots);
        DeviceArray<float> dinv(inv_freq);
        kpool.poison();
        vpool.poison();
        KvWriteTarget target;
        target.k_pool = kpool.get();
        target.v_pool = vpool.get();
        rope_write_kv(dqkv.get(), dpos.get(), dinv.get(), dslots.get(), target, T, c.heads, c.kv_heads, c.head_dim, c.block_size, nullptr);
        const auto out_qkv = test::from_half(dqkv.download());
        std::vector<float> out_q(size_t(T) * qd);
        for (int t = 0; t < T; ++t) std::copy_n(&out_qkv[size_t(t) * qkv_width], qd, &out_q[size_t(t) * qd]);
        EXPECT_TRUE(test::all_close(out_q, q, 2e-3f, 2e-3f));
        // Unwritten pool slots stay poisoned; written ones match.
        const auto kp = test::from_half(kpool.download()), vp = test::from_half(vpool.download());
        std::vector<float> kw, kr, vw, vr;
        for (size_t i = 0; i < pool_elems; ++i) {
            ASSERT_EQ(std::isnan(kref[i]), std::isnan(kp[i])) << "K pool element " << i;
            ASSERT_EQ(std::isnan(vref[i]), std::isnan(vp[i])) << "V pool element " << i;
            if (!std::isnan(kref[i])) {
                kw.push_back(kp[i]);
                kr.push_back(kref[i]);
                vw.push_back(vp[i]);
                vr.push_back(vref[i]);
            }
        }
        EXPECT_EQ(kw.size(), size_t(14) * kd);
        EXPECT_TRUE(test::all_close(kw, kr, 2e-3f, 2e-3f));
        EXPECT_EQ(vw, vr);  // V is copied bit for bit
    }
}

TEST(SimtKvCopy, CopiesEveryLayerKAndVBlock) {
    const int layers = 3, blocks = 6;
    const int64_t block_elems = 2 * 16 * 8;
    std::vector<DeviceArray<__half>> pools;
    std::vector<std::vector<float>> host;
    for (int p = 0; p < 2 * layers; ++p) {
        host.push_back(test::round_to_half(test::random_floats(size_t(blocks * block_elems), -1, 1, uint64_t(p + 1))));
        pools.emplace_back(test::to_half(host.back()));
    }
    std::vector<void*> ptrs;
    for (auto& p : pools) ptrs.push_back(p.get());
    DeviceArray<void*> dptrs(ptrs);
    const std::vector<int32_t> pairs = {0, 3, 5, 1, 2, 4};
    DeviceArray<int32_t> dpairs(pairs);
    copy_kv_blocks(dptrs.get(), 2 * layers, dpairs.get(), 3, block_elems * 2, nullptr);
    for (int p = 0; p < 2 * layers; ++p) {
        auto expect = host[size_t(p)];
        for (int i = 0; i < 3; ++i)
            std::copy_n(host[size_t(p)].begin() + pairs[size_t(2 * i)] * block_elems, block_elems,
                        expect.begin() + pairs[size_t(2 * i + 1)] * block_elems);
        EXPECT_EQ(test::from_half(pools[size_t(p)].download()), expect) << "pool " << p;
    }
}

TEST(SimtConvert, AllFloatDtypesToHalfAndFloat) {
    const auto f = test::random_floats(1000, -70000, 70000, 5);
    std::vector<uint16_t> h(f.size()), b(f.size());
    for (size_t i = 0; i < f.size(); ++i) {
        h[i] = f32_to_f16(f[i] / 100.0f);
        b[i] = f32_to_bf16(f[i]);
    }
    DeviceArray<float> df(f);
    DeviceArray<uint16_t> dh(h), db(b);
    DeviceArray<__half> out(f.size());
    DeviceArray<float> outf(f.size());
    auto bits = [](const std::vector<__half>& v) {
        std::vector<uint16_t> r(v.size());
        for (size_t i = 0; i < v.size(); ++i) r[i] = __half_as_ushort(v[i]);
        return r;
    };
    out.poison();
    convert_to_half(df.get(), DType::F32, out.get(), int64_t(f.size()), nullptr);
    const auto o = bits(out.download());
    for (size_t i = 0; i < f.size(); ++i) ASSERT_EQ(o[i], f32_to_f16(f[i])) << i;  // incl. overflow to inf
    out.poison();
    convert_to_half(dh.get(), DType::F16, out.get(), int64_t(f.size()), nullptr);
    EXPECT_EQ(bits(out.download()), h);
    out.poison();
    convert_to_half(db.get(), DType::BF16, out.get(), int64_t(f.size()), nullptr);
    const auto ob = bits(out.download());
    for (size_t i = 0; i < f.size(); ++i) ASSERT_EQ(ob[i], f32_to_f16(bf16_to_f32(b[i]))) << i;
    outf.poison();
    convert_to_float(db.get(), DType::BF16, outf.get(), int64_t(f.size()), nullptr);
    const auto of = outf.download();
    for (size_t i = 0; i < f.size(); ++i) ASSERT_EQ(of[i], bf16_to_f32(b[i])) << i;
}

TEST(SimtConvert, CountsValuesBeyondHalfRange) {
    // bf16 keeps fp32's exponent: 65536 and -131072 are ordinary bf16 values but infinities in fp16.
    // 65280 (the largest bf16 below fp16's limit) fits; inf and NaN inputs are not overflow.
    const std::vector<uint16_t> b = {0x3F80, 0x477F, 0x4780, 0xC800, 0x7F80, 0x7FC0, 0xBF80};
    const std::vector<float> f = {1.0f, 65504.0f, 65519.0f, 65520.0f, -1e30f, INFINITY, -2.0f};
    DeviceArray<uint16_t> db(b);
    DeviceArray<float> df(f);
    DeviceArray<__half> out(8);
    DeviceArray<HalfOverflow> counter(1);
    struct Case {
        const void* src;
        DType dtype;
        size_t n;
        unsigned count;
        float largest;
    } cases[] = {{db.get(), DType::BF16, b.size(), 2, 131072.0f}, {df.get(), DType::F32, f.size(), 2, 1e30f}};
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(dtype_name(c.dtype)));
        cuda::check(cudaMemset(counter.get(), 0, sizeof(HalfOverflow)), "memset");
        convert_to_half(c.src, c.dtype, out.get(), int64_t(c.n), nullptr, counter.get());
        const HalfOverflow o = counter.download()[0];
        EXPECT_EQ(o.count, c.count);
        float largest = 0;
        std::memcpy(&largest, &o.max_abs_bits, 4);
        EXPECT_EQ(largest, c.largest);
    }
    // fp32 65519 rounds down to fp16's largest value, 65520 up to infinity.
    const auto h = out.download();
    EXPECT_EQ(__half2float(h[2]), 65504.0f);
    EXPECT_EQ(__half2float(h[3]), INFINITY);
}

}  // namespace
}  // namespace folio::cuda
