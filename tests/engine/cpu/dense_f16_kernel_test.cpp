// The fast mode's fp16 dense kernel (kernels.h, DenseF16Table; AVX512-FP16) against a double
// reference on random shapes with ragged edges (inputs not a multiple of 32 or of the 512-input fold,
// rows not a multiple of the 4-row tile, tokens not a multiple of the 6-token tile), within the bound
// fp16 rounding of the activations and of each fp16 partial sum allows; bitwise the same for any batch
// or row range; no overflow for large weights and activations. Then the dispatch: which kernel
// run_linears takes in each mode, and the cost on a whole (random, dense fp16) model's logits.
// On a CPU without AVX512-FP16 the checks report Skipped, with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
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

const DenseF16Table* f16_or_null() {
    const KernelTable* base = kernels_for("avx512");
    return base ? dense_f16_kernels_for(*base) : nullptr;
}
#define REQUIRE_F16(fk)                                                                                            \
    const DenseF16Table* fk = f16_or_null();                                                                         \
    if (!fk) GTEST_SKIP() << "this CPU lacks AVX512-FP16 (or AVX-512): the fast mode runs dense fp16 weights on the " \
                             "fp32 FMA kernel here, which cpu_dense_kernel_test covers"

struct Case {
    int in, out, m;
    float w_std, x_std;
};

// Runs the kernel on one case and checks every element against the double reference.
void check_case(const DenseF16Table& fk, const Case& c, std::mt19937& rng, double* worst_rel) {
    std::normal_distribution<float> nd;
    std::vector<uint16_t> wh(size_t(c.in) * c.out);
    std::vector<double> wf(wh.size());
    float absmax = 0;
    for (size_t i = 0; i < wh.size(); ++i) {
        wh[i] = f32_to_f16(nd(rng) * c.w_std);
        wf[i] = f16_to_f32(wh[i]);
        absmax = std::max(absmax, float(std::fabs(wf[i])));
    }
    std::vector<float> x(size_t(c.m) * c.in);
    for (auto& v : x) v = nd(rng) * c.x_std;
    for (size_t i = 0; i < x.size(); i += 97) x[i] *= 40;  // outliers, as real activations have
    const int ldx = (c.in + 31) & ~31;
    std::vector<uint16_t> xh(size_t(c.m) * ldx, 0xFFFF);
    std::vector<float> unscale(static_cast<size_t>(c.m));
    fk.acts_to_f16(x.data(), 0, c.m, c.in, absmax, xh.data(), ldx, unscale.data());
    const DenseMatrix w{DType::F16, c.out, c.in, wh.data()};
    std::vector<float> y(size_t(c.m) * c.out, NAN);
    fk.dense_rows(w, 0, c.out, xh.data(), ldx, unscale.data(), c.m, y.data());
    const double u = std::ldexp(1.0, -11);  // fp16's unit roundoff
    for (int t = 0; t < c.m; ++t)
        for (int o = 0; o < c.out; ++o) {
            double ref = 0, mag = 0, wsum = 0;
            for (int i = 0; i < c.in; ++i) {
                const double p = wf[size_t(o) * c.in + i] * x[size_t(t) * c.in + i];
                ref += p;
                mag += std::fabs(p);
                wsum += std::fabs(wf[size_t(o) * c.in + i]);
            }
            // Relative: the activation's rounding (u), `steps` roundings of a lane's fp16 sum, the fold
            // and fp32 adds (u); absolute: fp16's subnormal spacing 2^-24 (half of it per rounding) in
            // the scaled units, for each activation and each partial sum.
            const double tol = (fk.steps + 2) * u * mag + (wsum + c.in) * std::ldexp(1.0, -25) * unscale[size_t(t)];
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

TEST(DenseF16Kernel, MatchesDoubleReferenceOnRaggedShapes) {
    REQUIRE_F16(fk);
    std::mt19937 rng(19);
    double worst = 0;
    const Case cases[] = {{1, 3, 1, 0.02f, 1}, {31, 5, 7, 0.02f, 1},   {32, 4, 6, 0.5f, 3},     {33, 9, 13, 0.02f, 1},
                          {100, 23, 2, 1, 0.1f}, {515, 17, 11, 0.02f, 1}, {1030, 70, 19, 0.02f, 2}, {2048, 97, 7, 0.02f, 1}};
    for (const Case& c : cases) check_case(*fk, c, rng, &worst);
    // The worst case bound is (steps + 2) * 2^-11 of sum |w x|; random signs give far less.
    std::printf("[ accuracy ] fp16 kernel: largest |error| / sum |w x| = %.2e (bound %.2e)\n", worst, (fk->steps + 2) * std::ldexp(1.0, -11));
}

TEST(DenseF16Kernel, LargeWeightsAndActivationsDoNotOverflow) {
    REQUIRE_F16(fk);
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
    fk->acts_to_f16(x.data(), 0, 2, 64, 0.5f, xh.data(), 64, unscale.data());
    std::vector<float> y(80, NAN);
    fk->dense_rows(DenseMatrix{DType::F16, 40, 64, wh.data()}, 0, 40, xh.data(), 64, unscale.data(), 2, y.data());
    for (int o = 0; o < 40; ++o) {
        EXPECT_EQ(y[size_t(o)], 0.0f);
        EXPECT_EQ(y[40 + size_t(o)], 32.0f);  // 64 * 0.5, exact in fp16
    }
}

// run_linears: the int8 (fast) mode takes the fp16 kernel for dense F16 weights, the exact mode keeps
// the fp32 kernel's bits; F32 and BF16 weights stay on the fp32 kernel in both.
TEST(DenseF16Kernel, DispatchByModeAndCpu) {
    const KernelTable& k = kernels();
    const DenseF16Table* fk = dense_f16_kernels();
    std::printf("[ dispatch ] kernels %s; fast-mode dense fp16 kernel: %s\n", k.isa, fk ? fk->isa : "none (fp32 FMA)");
    if (!fk)
        GTEST_SKIP() << "no fp16 dense kernel here (" << k.isa << " kernels"
                     << (f16_or_null() ? ", FOLIO_CPU_ISA forces them" : ", CPU without AVX512-FP16") << "): both modes run fp32 FMA";
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
    ASSERT_GE(p.f16_absmax, 0.0f);
    QuantizedActs acts;
    std::vector<float> y_fast(size_t(m) * out), y_exact(size_t(m) * out), y_fp32(size_t(m) * out), y_f16(size_t(m) * out);
    run_linears({{&p, y_fast.data()}}, x.data(), m, 1, acts, pool);
    run_linears({{&p, y_exact.data()}}, x.data(), m, 3, acts, pool);
    k.dense_rows(p.dense, 0, out, x.data(), m, y_fp32.data());
    const int ldx = (in + 31) & ~31;
    std::vector<uint16_t> xh(size_t(m) * ldx);
    std::vector<float> unscale(static_cast<size_t>(m));
    fk->acts_to_f16(x.data(), 0, m, in, p.f16_absmax, xh.data(), ldx, unscale.data());
    fk->dense_rows(p.dense, 0, out, xh.data(), ldx, unscale.data(), m, y_f16.data());
    EXPECT_EQ(std::memcmp(y_exact.data(), y_fp32.data(), y_fp32.size() * 4), 0) << "the exact mode must keep the fp32 kernel's bits";
    EXPECT_EQ(std::memcmp(y_fast.data(), y_f16.data(), y_f16.size() * 4), 0) << "the int8 mode must run the fp16 kernel";
    EXPECT_NE(std::memcmp(y_fast.data(), y_exact.data(), y_f16.size() * 4), 0);
    EXPECT_EQ(p.f16_absmax, [&] {
        float mx = 0;
        for (uint16_t v : wh) mx = std::max(mx, std::fabs(f16_to_f32(v)));
        return mx;
    }());
    // A weight that is infinite (or NaN) keeps the matrix on the fp32 kernel, whose results it defines.
    std::vector<uint16_t> winf = wh;
    winf[winf.size() - 3] = 0xFC00;  // -inf, in the ragged tail of the vector loop
    l.dense = DenseMatrix{DType::F16, out, in, winf.data()};
    EXPECT_LT(prepare_linear(l).f16_absmax, 0.0f);
    // BF16 weights: never the fp16 kernel.
    std::vector<uint16_t> wb(wh.size());
    for (size_t i = 0; i < wb.size(); ++i) wb[i] = f32_to_bf16(f16_to_f32(wh[i]));
    l.dense = DenseMatrix{DType::BF16, out, in, wb.data()};
    const PreparedLinear pb = prepare_linear(l);
    EXPECT_LT(pb.f16_absmax, 0.0f);
    run_linears({{&pb, y_fast.data()}}, x.data(), m, 1, acts, pool);
    k.dense_rows(pb.dense, 0, out, x.data(), m, y_fp32.data());
    EXPECT_EQ(std::memcmp(y_fast.data(), y_fp32.data(), y_fp32.size() * 4), 0);
}

}  // namespace
}  // namespace folio::cpu

namespace folio {
namespace {

// What the fast mode costs on a whole dense fp16 model (dummy:tiny: random weights, 4 layers, hidden 256,
// vocab 32000): max |logit difference| to the exact mode, printed for the README.
TEST(DenseF16Model, LogitCost) {
    if (!cpu::f16_or_null() || !cpu::dense_f16_kernels()) GTEST_SKIP() << "no fp16 dense kernel in use (a CPU without AVX512-FP16, or FOLIO_CPU_ISA forcing avx2 or generic): both modes run fp32 FMA, the same bits";
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
    std::printf("[ accuracy ] dummy:tiny (fp16), %zu-token prompt: fast (fp16 products) vs exact, max |logit difference| %.2e over a logit range of %.3f (%.2e of it)\n",
                prompt.size(), err, hi - lo, err / (hi - lo));
    EXPECT_GT(err, 0.0) << "the fast mode gave the exact bits: is the fp16 kernel used?";
    EXPECT_LT(err, 1e-2 * (hi - lo));
}

}  // namespace
}  // namespace folio
