// AWQ GEMV, tensor-core GEMM (AWQ and fp16 weights) and AWQ dequantisation against cpu::linear and
// awq_weight(), over odd shapes, forced split-K counts and both output types.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/thread_pool.h"
#include "engine/cpu/ops.h"
#include "engine/model/awq.h"
#include "kernels/gemm.h"
#include "support/simt_test_util.h"

namespace folio::cuda {
namespace {

using test::DeviceArray;

// A random AWQ matrix, host (for the CPU reference) and device.
struct AwqFixture {
    int k, n, g;
    std::vector<int32_t> qweight, qzeros;
    std::vector<uint16_t> scales;
    DeviceArray<int32_t> dq, dz;
    DeviceArray<__half> ds;

    AwqFixture(int k_, int n_, int g_, uint64_t seed) : k(k_), n(n_), g(g_) {
        std::mt19937_64 rng(seed);
        std::uniform_int_distribution<int> nib(0, 15);
        std::vector<uint8_t> q(size_t(k) * n), z(size_t(k / g) * n);
        for (auto& v : q) v = uint8_t(nib(rng));
        for (auto& v : z) v = uint8_t(nib(rng));
        qweight = awq_pack(q, k, n);
        qzeros = awq_pack(z, k / g, n);
        const auto s = test::random_floats(size_t(k / g) * n, 0.001f, 0.02f, seed + 1);
        for (float v : s) scales.push_back(f32_to_f16(v));
        dq = DeviceArray<int32_t>(qweight);
        dz = DeviceArray<int32_t>(qzeros);
        std::vector<__half> sh(scales.size());
        for (size_t i = 0; i < scales.size(); ++i) sh[i] = __ushort_as_half(scales[i]);
        ds = DeviceArray<__half>(sh);
    }
    Linear linear() const {
        Linear l;
        l.kind = Linear::Kind::Awq;
        l.in = k;
        l.out = n;
        l.awq = AwqMatrix{k, n, g, qweight.data(), qzeros.data(), scales.data()};
        return l;
    }
    AwqWeightsView view() const { return {dq.get(), dz.get(), ds.get(), k, n, g}; }
};

// Random fp16 [n, k] weights, as the CPU reference's Linear and on the device.
struct DenseFixture {
    int k, n;
    std::vector<float> values;   // rounded to fp16
    std::vector<uint16_t> bits;  // the same as fp16 bits, for the CPU Linear
    DeviceArray<__half> dw;

    DenseFixture(int k_, int n_, uint64_t seed)
        : k(k_), n(n_), values(test::round_to_half(test::random_floats(size_t(n_) * k_, -0.2f, 0.2f, seed))), dw(test::to_half(values)) {
        for (float v : values) bits.push_back(f32_to_f16(v));
    }
    Linear linear() const {
        Linear l;
        l.kind = Linear::Kind::Dense;
        l.in = k;
        l.out = n;
        l.dense = DenseMatrix{DType::F16, n, k, bits.data()};
        return l;
    }
    DenseWeightsView view() const { return DenseWeightsView{dw.get(), k, n}; }
};

std::vector<float> cpu_linear(const Linear& l, const std::vector<float>& x, int m) {
    ThreadPool pool(1);
    std::vector<float> y(size_t(m) * l.out);
    cpu::linear(l, x.data(), m, y.data(), pool);
    return y;
}

// Runs one product into a poisoned output of either type and returns it as floats.
template <class Fn>
std::vector<float> run_product(int m, int n, bool out_fp32, Fn&& fn) {
    if (out_fp32) {
        DeviceArray<float> y(size_t(m) * n);
        y.poison();
        fn(static_cast<void*>(y.get()));
        return y.download();
    }
    DeviceArray<__half> y(size_t(m) * n);
    y.poison();
    fn(static_cast<void*>(y.get()));
    return test::from_half(y.download());
}

struct Workspace {
    DeviceArray<float> partials;
    DeviceArray<int> counters;
    SplitKWorkspace view;
    Workspace(int m, int n, int splits) : partials(split_k_partial_floats(m, n, splits) + 1), counters(size_t(split_k_counters(m, n))) {
        counters.upload(std::vector<int>(counters.size(), 0));
        partials.poison();
        view = {partials.get(), partials.size(), counters.get(), int(counters.size())};
    }
};

struct Shape {
    int k, n, g;
};

TEST(SimtAwqGemv, MatchesCpuLinearForEveryRowCountAndSplit) {
    const Shape shapes[] = {{128, 64, 32}, {256, 136, 64}, {384, 520, 128}};
    uint64_t seed = 1;
    for (const auto& s : shapes) {
        AwqFixture w(s.k, s.n, s.g, seed++);
        for (int m : {1, 2, 3, 5, 8}) {
            const auto x = test::round_to_half(test::random_floats(size_t(m) * s.k, -1, 1, seed++));
            const auto ref = cpu_linear(w.linear(), x, m);
            DeviceArray<__half> dx(test::to_half(x));
            for (int splits : {1, 2, 3, 0}) {
                for (bool fp32 : {false, true}) {
                    SCOPED_TRACE("k " + std::to_string(s.k) + " n " + std::to_string(s.n) + " m " + std::to_string(m) +
                                 " splits " + std::to_string(splits) + (fp32 ? " fp32" : " fp16"));
                    Workspace ws(m, s.n, std::max(splits, s.k / s.g));
                    // Twice with one workspace: the split-K counters must reset themselves.
                    for (int rep = 0; rep < 2; ++rep) {
                        const auto y = run_product(m, s.n, fp32, [&](void* out) {
                            awq_gemv(w.view(), dx.get(), m, out, fp32, splits, 8, ws.view, nullptr);
                        });
                        EXPECT_TRUE(test::all_close(y, ref, 3e-3f, fp32 ? 1e-4f : 2e-3f));
                    }
                }
            }
        }
    }
}

TEST(SimtAwqGemv, EightRowsInOneCallEqualEightSingleRowCalls) {
    // Batch composition cannot change a row's result: same accumulation order for every row.
    AwqFixture w(256, 128, 128, 9);
    const auto xh = test::to_half(test::random_floats(8 * 256, -1, 1, 10));
    DeviceArray<__half> dx(xh);
    Workspace ws(8, 128, 2);
    const auto all = run_product(8, 128, true, [&](void* out) { awq_gemv(w.view(), dx.get(), 8, out, true, 1, 8, ws.view, nullptr); });
    for (int r = 0; r < 8; ++r) {
        DeviceArray<__half> row(std::vector<__half>(xh.begin() + r * 256, xh.begin() + (r + 1) * 256));
        const auto one = run_product(1, 128, true, [&](void* out) { awq_gemv(w.view(), row.get(), 1, out, true, 1, 8, ws.view, nullptr); });
        for (int c = 0; c < 128; ++c) EXPECT_EQ(one[size_t(c)], all[size_t(r * 128 + c)]);
    }
}

TEST(SimtGemmMma, AwqMatchesCpuLinearAcrossTilesAndSplits) {
    const Shape shapes[] = {{128, 64, 32}, {256, 136, 64}, {384, 200, 128}};
    uint64_t seed = 100;
    for (const auto& s : shapes) {
        AwqFixture w(s.k, s.n, s.g, seed++);
        for (int m : {9, 64, 70}) {
            const auto x = test::round_to_half(test::random_floats(size_t(m) * s.k, -1, 1, seed++));
            const auto ref = cpu_linear(w.linear(), x, m);
            DeviceArray<__half> dx(test::to_half(x));
            for (int splits : {1, 3}) {
                SCOPED_TRACE("k " + std::to_string(s.k) + " n " + std::to_string(s.n) + " m " + std::to_string(m) + " splits " +
                             std::to_string(splits));
                Workspace ws(m, s.n, splits);
                const bool fp32 = splits == 3;
                const auto y = run_product(m, s.n, fp32, [&](void* out) {
                    gemm_mma_awq(w.view(), dx.get(), m, out, fp32, splits, 8, ws.view, nullptr);
                });
                EXPECT_TRUE(test::all_close(y, ref, 3e-3f, fp32 ? 1e-4f : 2e-3f));
            }
        }
    }
}

TEST(SimtGemmMma, DenseMatchesCpuLinearIncludingUnalignedK) {
    const std::pair<int, int> shapes[] = {{64, 344}, {172, 64}, {128, 100}, {40, 24}};
    uint64_t seed = 200;
    test::for_each_schedule([&](const char*) {
        for (const auto& [k, n] : shapes) {
            const DenseFixture w(k, n, seed++);
            const Linear l = w.linear();
            for (int m : {1, 17, 65}) {
                SCOPED_TRACE("k " + std::to_string(k) + " n " + std::to_string(n) + " m " + std::to_string(m));
                const auto x = test::round_to_half(test::random_floats(size_t(m) * k, -1, 1, seed++));
                const auto ref = cpu_linear(l, x, m);
                DeviceArray<__half> dx(test::to_half(x));
                Workspace ws(m, n, 2);
                for (int splits : {1, 2}) {
                    const auto y = run_product(m, n, true, [&](void* out) {
                        gemm_mma_dense(w.view(), dx.get(), m, out, true, splits, 8, ws.view, nullptr);
                    });
                    EXPECT_TRUE(test::all_close(y, ref, 1e-4f, 1e-4f));
                }
            }
        }
    });
}

TEST(SimtDenseGemv, MatchesCpuLinearForSmallBatches) {
    uint64_t seed = 300;
    for (const auto& [k, n] : {std::pair{64, 344}, std::pair{172, 64}, std::pair{128, 1000}}) {
        const DenseFixture w(k, n, seed++);
        const Linear l = w.linear();
        for (int m : {1, 3, 8}) {
            SCOPED_TRACE("k " + std::to_string(k) + " n " + std::to_string(n) + " m " + std::to_string(m));
            const auto x = test::round_to_half(test::random_floats(size_t(m) * k, -1, 1, seed++));
            const auto ref = cpu_linear(l, x, m);
            DeviceArray<__half> dx(test::to_half(x));
            for (bool fp32 : {true, false}) {
                const auto y = run_product(m, n, fp32, [&](void* out) { dense_gemv(w.view(), dx.get(), m, out, fp32, nullptr); });
                EXPECT_TRUE(test::all_close(y, ref, fp32 ? 1e-4f : 2e-3f, fp32 ? 1e-4f : 2e-3f));
            }
        }
    }
}

TEST(SimtAwqDequant, EveryWeightIsAwqWeightRoundedToHalf) {
    AwqFixture w(256, 136, 64, 77);
    DeviceArray<__half> out(size_t(256) * 136);
    out.poison();
    awq_dequantize(w.view(), out.get(), nullptr);
    const auto got = out.download();
    const AwqMatrix m = w.linear().awq;
    for (int i = 0; i < 256; ++i)
        for (int o = 0; o < 136; ++o)
            ASSERT_EQ(__half_as_ushort(got[size_t(i) * 136 + o]), f32_to_f16(awq_weight(m, i, o))) << i << "," << o;
}

}  // namespace
}  // namespace folio::cuda
