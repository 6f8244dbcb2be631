// The fast mode's 16-bit dense kernels (kernels.h, DenseHalfTable: fp16 products on AVX512-FP16, bf16
// pairs on AVX512-BF16) against a double reference on random shapes with ragged edges (inputs not a
// multiple of 32 or of the 512-input fold, rows not a multiple of the 4-row tile, tokens not a multiple
// of the 6-token tile), within the bound their rounding allows; bitwise the same for any batch or row
// range; no overflow for large weights and activations. Then the dispatch: which kernel run_linears
// takes in each mode, and the cost on a whole (random, dense fp16) model's logits.
// Each kernel this CPU lacks reports Skipped, with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <tuple>

#include "engine/backend/backend.h"
#include "engine/core/half.h"
#include "engine/core/thread_pool.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/cpu/cpu_linear.h"
#include "engine/cpu/kernels.h"
#include "engine/model/model.h"
#include "tests/engine/cpu/model_fixture.h"

namespace folio::cpu {
namespace {

class HalfKernel : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        fk = dense_half_kernels_named(GetParam());
        if (!fk)
            GTEST_SKIP() << "this CPU lacks " << GetParam() << " (or AVX-512): the fast mode runs dense 16-bit weights on "
                         << (dense_half_kernels() ? dense_half_kernels()->isa : "the fp32 FMA kernel") << " here";
    }
    const DenseHalfTable* fk = nullptr;
};

struct Case {
    int in, out, m;
    float w_std, x_std;
};

// Runs the kernel on one case and checks every element against the double reference.
void check_case(const DenseHalfTable& fk, const Case& c, std::mt19937& rng, double* worst_rel, DType wt = DType::F16) {
    std::normal_distribution<float> nd;
    std::vector<uint16_t> wh(size_t(c.in) * c.out);
    std::vector<double> wf(wh.size());
    float absmax = 0;
    for (size_t i = 0; i < wh.size(); ++i) {
        const float v = nd(rng) * c.w_std;
        wh[i] = wt == DType::F16 ? f32_to_f16(v) : f32_to_bf16(v);
        wf[i] = wt == DType::F16 ? f16_to_f32(wh[i]) : bf16_to_f32(wh[i]);
        absmax = std::max(absmax, float(std::fabs(wf[i])));
    }
    std::vector<float> x(size_t(c.m) * c.in);
    for (auto& v : x) v = nd(rng) * c.x_std;
    for (size_t i = 0; i < x.size(); i += 97) x[i] *= 40;  // outliers, as real activations have
    const int ldx = (c.in + 31) & ~31;
    std::vector<uint16_t> xh(size_t(c.m) * ldx, 0xFFFF);
    std::vector<float> unscale(static_cast<size_t>(c.m));
    fk.acts_to_half(x.data(), 0, c.m, c.in, absmax, xh.data(), ldx, unscale.data());
    const DenseMatrix w{wt, c.out, c.in, wh.data()};
    std::vector<float> y(size_t(c.m) * c.out, NAN);
    fk.dense_rows(w, 0, c.out, xh.data(), ldx, unscale.data(), c.m, y.data());
    const double u = std::ldexp(1.0, -fk.bits);  // the 16-bit format's unit roundoff
    // bf16 from F16 weights rounds each weight too (bf16 weights are used as stored).
    const int roundings = fk.steps > 0 ? fk.steps + 2 : wt == DType::F16 ? 2 : 1;
    for (int t = 0; t < c.m; ++t)
        for (int o = 0; o < c.out; ++o) {
            double ref = 0, mag = 0, wsum = 0;
            for (int i = 0; i < c.in; ++i) {
                const double p = wf[size_t(o) * c.in + i] * x[size_t(t) * c.in + i];
                ref += p;
                mag += std::fabs(p);
                wsum += std::fabs(wf[size_t(o) * c.in + i]);
            }
            // fp16: relative, the activation's rounding (u), `steps` roundings of a lane's fp16 sum, the
            // fold and fp32 adds (u); absolute, fp16's subnormal spacing 2^-24 (half of it per rounding)
            // in the scaled units, for each activation and each partial sum. bf16: relative, the
            // activation's and weight's roundings (u each) and the fp32 sums of a lane (in/16 + 8 adds).
            const double tol = fk.steps > 0 ? roundings * u * mag + (wsum + c.in) * std::ldexp(1.0, -25) * unscale[size_t(t)]
                                            : (roundings * u + u * u + (c.in / 16.0 + 8) * std::ldexp(1.0, -24)) * mag + 1e-30;
            const double got = y[size_t(t) * c.out + o];
            ASSERT_TRUE(std::isfinite(got)) << "in " << c.in << " out " << c.out << " token " << t << " row " << o;
            ASSERT_NEAR(got, ref, tol) << "in " << c.in << " out " << c.out << " m " << c.m << " token " << t << " row " << o;
            if (mag > 0) *worst_rel = std::max(*worst_rel, std::fabs(got - ref) / mag);
        }
    // One token at a time and odd row ranges: the same bits.
    for (int t = 0; t < c.m; t += std::max(1, c.m / 3)) {
        std::vector<float> y1(size_t(c.out), NAN);
        for (int r = 0; r < c.out; r += 5)
            fk.dense_rows(w, r, std::min(c.out, r + 5), xh.data() + size_t(t) * ldx, ldx, unscale.data() + t, 1, y1.data());
        EXPECT_EQ(std::memcmp(y1.data(), y.data() + size_t(t) * c.out, sizeof(float) * size_t(c.out)), 0)
            << "in " << c.in << " out " << c.out << " token " << t << ": a row's result depends on the batch or rows";
    }
}

TEST_P(HalfKernel, MatchesDoubleReferenceOnRaggedShapes) {
    std::mt19937 rng(19);
    double worst = 0;
    const Case cases[] = {{1, 3, 1, 0.02f, 1}, {31, 5, 7, 0.02f, 1},   {32, 4, 6, 0.5f, 3},     {33, 9, 13, 0.02f, 1},
                          {100, 23, 2, 1, 0.1f}, {515, 17, 11, 0.02f, 1}, {1030, 70, 19, 0.02f, 2}, {2048, 97, 7, 0.02f, 1}};
    for (const Case& c : cases) check_case(*fk, c, rng, &worst);
    // The worst case bound is (steps + 2) * 2^-11 of sum |w x| (fp16), about 2 * 2^-8 (bf16); random signs give far less.
    const double bound = (fk->steps > 0 ? fk->steps + 2 : 2) * std::ldexp(1.0, -fk->bits);
    std::printf("[ accuracy ] %s kernel, fp16 weights: largest |error| / sum |w x| = %.2e (bound %.2e)\n", fk->isa, worst, bound);
    if (fk->bf16_weights) {
        double worst_bf16 = 0;
        for (const Case& c : cases) check_case(*fk, c, rng, &worst_bf16, DType::BF16);
        std::printf("[ accuracy ] %s kernel, bf16 weights: largest |error| / sum |w x| = %.2e\n", fk->isa, worst_bf16);
    }
}

// bf16 weights that are fp16 weights rounded to bf16 give the same bits as those fp16 weights: the kernel
// rounds fp16 weights to nearest even once, and uses bf16 weights as stored.
TEST_P(HalfKernel, Bf16WeightsAreTheRoundedFp16Weights) {
    if (!fk->bf16_weights) GTEST_SKIP() << fk->isa << " takes F16 weights only (BF16 ones run on the fp32 FMA kernel)";
    std::mt19937 rng(5);
    std::normal_distribution<float> nd;
    const int in = 777, out = 29, m = 8, ldx = (in + 31) & ~31;
    std::vector<uint16_t> wh(size_t(in) * out), wb(wh.size());
    for (size_t i = 0; i < wh.size(); ++i) {
        wh[i] = f32_to_f16(nd(rng) * 0.05f);
        wb[i] = f32_to_bf16(f16_to_f32(wh[i]));
    }
    std::vector<float> x(size_t(m) * in), unscale(static_cast<size_t>(m));
    for (auto& v : x) v = nd(rng);
    std::vector<uint16_t> xh(size_t(m) * ldx);
    fk->acts_to_half(x.data(), 0, m, in, 1.0f, xh.data(), ldx, unscale.data());
    std::vector<float> yh(size_t(m) * out, NAN), yb(size_t(m) * out, NAN);
    fk->dense_rows(DenseMatrix{DType::F16, out, in, wh.data()}, 0, out, xh.data(), ldx, unscale.data(), m, yh.data());
    fk->dense_rows(DenseMatrix{DType::BF16, out, in, wb.data()}, 0, out, xh.data(), ldx, unscale.data(), m, yb.data());
    EXPECT_EQ(std::memcmp(yh.data(), yb.data(), yh.size() * sizeof(float)), 0);
}

TEST_P(HalfKernel, LargeWeightsAndActivationsDoNotOverflow) {
    std::mt19937 rng(7);
    double worst = 0;
    // |w| up to ~4e4 (fp16's range ends at 65504) with activations up to 1e8, and tiny ones.
    check_case(*fk, {600, 9, 8, 1e4f, 1e6f}, rng, &worst);
    check_case(*fk, {600, 9, 8, 1e-3f, 1e-6f}, rng, &worst);
    // A zero token stays exactly zero.
    std::vector<uint16_t> wh(64 * 40, f32_to_f16(0.5f));
    std::vector<float> x(64 * 2, 0.0f), unscale(2);
    for (int i = 0; i < 64; ++i) x[64 + size_t(i)] = 1.0f;
    std::vector<uint16_t> xh(64 * 2);
    fk->acts_to_half(x.data(), 0, 2, 64, 0.5f, xh.data(), 64, unscale.data());
    std::vector<float> y(80, NAN);
    fk->dense_rows(DenseMatrix{DType::F16, 40, 64, wh.data()}, 0, 40, xh.data(), 64, unscale.data(), 2, y.data());
    for (int o = 0; o < 40; ++o) {
        EXPECT_EQ(y[size_t(o)], 0.0f);
        EXPECT_EQ(y[40 + size_t(o)], 32.0f);  // 64 * 0.5, exact in fp16 and bf16
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, HalfKernel, ::testing::Values("avx512fp16", "avx512bf16"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

// run_linears: the int8 (fast) mode takes the 16-bit kernel for dense F16 weights (and BF16 ones where
// it takes them), the exact mode keeps the fp32 kernel's bits; F32 weights stay on the fp32 kernel in both.
TEST(DenseHalfDispatch, ByModeAndCpu) {
    const KernelTable& k = kernels();
    const DenseHalfTable* fk = dense_half_kernels();
    std::printf("[ dispatch ] kernels %s; fast-mode dense 16-bit kernel: %s\n", k.isa, fk ? fk->isa : "none (fp32 FMA)");
    const KernelTable* avx512 = kernels_for("avx512");
    if (!fk)
        GTEST_SKIP() << "no 16-bit dense kernel here (" << k.isa << " kernels"
                     << (avx512 && dense_half_kernels_for(*avx512) ? ", FOLIO_CPU_ISA forces them" : ", CPU without AVX512-FP16 or AVX512-BF16")
                     << "): both modes run fp32 FMA";
    // fp16 where the CPU has it (kernels.cpp says why), else bf16.
    EXPECT_STREQ(fk->isa, dense_half_kernels_named("avx512fp16") ? "avx512fp16" : "avx512bf16");
    ThreadPool pool(2);
    std::mt19937 rng(3);
    std::normal_distribution<float> nd;
    const int in = 300, out = 37, m = 9;
    std::vector<uint16_t> wh(size_t(in) * out);
    for (auto& v : wh) v = f32_to_f16(nd(rng) * 0.05f);
    std::vector<float> x(size_t(m) * in);
    for (auto& v : x) v = nd(rng);
    Linear l;
    l.kind = Linear::Kind::Dense;
    l.in = in;
    l.out = out;
    l.dense = DenseMatrix{DType::F16, out, in, wh.data()};
    const PreparedLinear p = prepare_linear(l);
    ASSERT_GE(p.half_absmax, 0.0f);
    QuantizedActs acts;
    std::vector<float> y_fast(size_t(m) * out), y_exact(size_t(m) * out), y_fp32(size_t(m) * out), y_f16(size_t(m) * out);
    run_linears({{&p, y_fast.data()}}, x.data(), m, 1, acts, pool);
    run_linears({{&p, y_exact.data()}}, x.data(), m, 3, acts, pool);
    k.dense_rows(p.dense, 0, out, x.data(), m, y_fp32.data());
    const int ldx = (in + 31) & ~31;
    std::vector<uint16_t> xh(size_t(m) * ldx);
    std::vector<float> unscale(static_cast<size_t>(m));
    fk->acts_to_half(x.data(), 0, m, in, p.half_absmax, xh.data(), ldx, unscale.data());
    fk->dense_rows(p.dense, 0, out, xh.data(), ldx, unscale.data(), m, y_f16.data());
    EXPECT_EQ(std::memcmp(y_exact.data(), y_fp32.data(), y_fp32.size() * 4), 0) << "the exact mode must keep the fp32 kernel's bits";
    EXPECT_EQ(std::memcmp(y_fast.data(), y_f16.data(), y_f16.size() * 4), 0) << "the int8 mode must run the 16-bit kernel";
    EXPECT_NE(std::memcmp(y_fast.data(), y_exact.data(), y_f16.size() * 4), 0);
    EXPECT_EQ(p.half_absmax, [&] {
        float mx = 0;
        for (uint16_t v : wh) mx = std::max(mx, std::fabs(f16_to_f32(v)));
        return mx;
    }());
    // A weight that is infinite (or NaN) keeps the matrix on the fp32 kernel, whose results it defines.
    std::vector<uint16_t> winf = wh;
    winf[winf.size() - 3] = 0xFC00;  // -inf, in the ragged tail of the vector loop
    l.dense = DenseMatrix{DType::F16, out, in, winf.data()};
    EXPECT_LT(prepare_linear(l).half_absmax, 0.0f);
    // BF16 weights: the bf16 kernel takes them (the same bits as the rounded fp16 weights, above); the
    // fp16 kernel leaves them on the fp32 kernel. An infinite BF16 weight keeps them on fp32 as well.
    std::vector<uint16_t> wb(wh.size());
    for (size_t i = 0; i < wb.size(); ++i) wb[i] = f32_to_bf16(f16_to_f32(wh[i]));
    l.dense = DenseMatrix{DType::BF16, out, in, wb.data()};
    const PreparedLinear pb = prepare_linear(l);
    run_linears({{&pb, y_fast.data()}}, x.data(), m, 1, acts, pool);
    if (fk->bf16_weights) {
        ASSERT_GE(pb.half_absmax, 0.0f);
        fk->acts_to_half(x.data(), 0, m, in, pb.half_absmax, xh.data(), ldx, unscale.data());
        fk->dense_rows(pb.dense, 0, out, xh.data(), ldx, unscale.data(), m, y_f16.data());
        EXPECT_EQ(std::memcmp(y_fast.data(), y_f16.data(), y_f16.size() * 4), 0) << "the int8 mode must run the bf16 kernel";
        wb[5] = 0x7F80;  // +inf
        EXPECT_LT(prepare_linear(l).half_absmax, 0.0f);
    } else {
        EXPECT_LT(pb.half_absmax, 0.0f);
        k.dense_rows(pb.dense, 0, out, x.data(), m, y_fp32.data());
        EXPECT_EQ(std::memcmp(y_fast.data(), y_fp32.data(), y_fp32.size() * 4), 0);
    }
}

}  // namespace
}  // namespace folio::cpu

namespace folio {
namespace {

// What the fast mode costs on a whole dense fp16 model (dummy:tiny: random weights, 4 layers, hidden 256,
// vocab 32000): max |logit difference| to the exact mode, printed for the README.
TEST(DenseHalfModel, LogitCost) {
    const cpu::DenseHalfTable* fk = cpu::dense_half_kernels();
    if (!fk) GTEST_SKIP() << "no 16-bit dense kernel in use (a CPU without AVX512-FP16 or AVX512-BF16, or FOLIO_CPU_ISA forcing avx2 or generic): both modes run fp32 FMA, the same bits";
    auto m = load_model("dummy:tiny");
    auto fast = make_cpu_backend(*m, {});
    auto exact = make_cpu_backend(*m, test::exact_cpu());
    const std::vector<int32_t> prompt = {1, 15043, 23072, 10235, 13833, 22578, 14027, 346, 4942, 21405, 29871, 13, 450};
    const auto run = [&](Backend& b, int n) {
        KvLayout layout{m->config.num_layers, m->config.num_kv_heads, m->config.head_dim, 16, 8};
        b.allocate_kv(layout);
        ForwardBatch batch;
        SeqSlice s;
        s.seq_id = 0;
        s.num_tokens = n;
        s.num_blocks = 1;
        s.want_logits = true;
        batch.block_tables.push_back(0);
        batch.tokens.assign(prompt.begin(), prompt.begin() + n);
        batch.seqs.push_back(s);
        std::vector<float> logits;
        b.forward(batch, logits);
        return logits;
    };
    const auto f = run(*fast, int(prompt.size())), e = run(*exact, int(prompt.size()));
    double err = 0, lo = e[0], hi = e[0];
    for (size_t i = 0; i < e.size(); ++i) {
        err = std::max(err, double(std::fabs(f[i] - e[i])));
        lo = std::min(lo, double(e[i]));
        hi = std::max(hi, double(e[i]));
    }
    std::printf("[ accuracy ] dummy:tiny (fp16), %zu-token prompt: fast (%s kernel) vs exact, max |logit difference| %.2e over a logit range of %.3f (%.2e of it)\n",
                prompt.size(), fk->isa, err, hi - lo, err / (hi - lo));
    EXPECT_GT(err, 0.0) << "the fast mode gave the exact bits: is the 16-bit kernel used?";
    EXPECT_LT(err, 1e-2 * (hi - lo));
}

}  // namespace
}  // namespace folio
