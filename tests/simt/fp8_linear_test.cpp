// The FP8 linear kernels against the CPU: fp8_gemv and gemm_mma_fp8w (weight-only, W8A16) against
// cpu::linear on the same FP8 matrix (odd k, E4M3 and E5M2, split-K, both output types),
// quantize_rows_fp8 bit for bit against the definition, and the W8A8 GEMM (mma.sync m16n8k32 e4m3)
// against a double-precision product of the same codes.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/fp8.h"
#include "engine/core/thread_pool.h"
#include "engine/cpu/ops.h"
#include "kernels/gemm.h"
#include "support/simt_test_util.h"

namespace folio::cuda {
namespace {

using test::DeviceArray;

struct Fp8Fixture {
    int k, n;
    bool e5m2;
    std::vector<uint8_t> codes;
    std::vector<float> scales;
    DeviceArray<uint8_t> dcodes;
    DeviceArray<float> dscales;

    Fp8Fixture(int k_, int n_, bool e5, uint64_t seed) : k(k_), n(n_), e5m2(e5) {
        const auto w = test::random_floats(size_t(k) * n, -300, 300, seed);
        const auto s = test::random_floats(size_t(n), 1e-4f, 3e-3f, seed + 1);
        for (float v : w) codes.push_back(e5m2 ? f32_to_fp8_e5m2(v) : f32_to_fp8_e4m3(v));
        scales = s;
        dcodes = DeviceArray<uint8_t>(codes);
        dscales = DeviceArray<float>(scales);
    }
    Linear linear() const {
        Linear l;
        l.kind = Linear::Kind::Fp8;
        l.in = k;
        l.out = n;
        l.fp8 = Fp8Matrix{e5m2 ? DType::F8_E5M2 : DType::F8_E4M3, n, k, codes.data(), scales.data(), 0.0f};
        return l;
    }
    Fp8WeightsView view() const { return {dcodes.get(), dscales.get(), k, n, e5m2}; }
};

std::vector<float> cpu_linear(const Linear& l, const std::vector<float>& x, int m) {
    ThreadPool pool(1);
    std::vector<float> y(size_t(m) * l.out);
    cpu::linear(l, x.data(), m, y.data(), pool);
    return y;
}

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

TEST(SimtFp8Gemv, MatchesCpuLinear) {
    uint64_t seed = 1;
    for (auto [k, n] : {std::pair{64, 40}, {172, 64}, {4096, 8}})
        for (bool e5m2 : {false, true}) {
            Fp8Fixture w(k, n, e5m2, seed++);
            for (int m : {1, 3, 8}) {
                const auto x = test::round_to_half(test::random_floats(size_t(m) * k, -1, 1, seed++));
                const auto ref = cpu_linear(w.linear(), x, m);
                DeviceArray<__half> dx(test::to_half(x));
                for (bool fp32 : {false, true}) {
                    SCOPED_TRACE("k " + std::to_string(k) + " n " + std::to_string(n) + " m " + std::to_string(m) + (e5m2 ? " e5m2" : " e4m3") +
                                 (fp32 ? " fp32" : " fp16"));
                    const auto y = run_product(m, n, fp32, [&](void* out) { fp8_gemv(w.view(), dx.get(), m, out, fp32, nullptr); });
                    EXPECT_TRUE(test::all_close(y, ref, 2e-3f, fp32 ? 1e-4f : 2e-3f));
                }
            }
        }
}

TEST(SimtFp8GemmWeightOnly, MatchesCpuLinearForSplitsAndOddK) {
    uint64_t seed = 20;
    for (auto [k, n] : {std::pair{172, 64}, {256, 136}, {64, 72}})
        for (bool e5m2 : {false, true}) {
            Fp8Fixture w(k, n, e5m2, seed++);
            for (int m : {9, 70}) {
                const auto x = test::round_to_half(test::random_floats(size_t(m) * k, -1, 1, seed++));
                const auto ref = cpu_linear(w.linear(), x, m);
                DeviceArray<__half> dx(test::to_half(x));
                for (int splits : {1, 3}) {
                    const bool fp32 = splits == 3;
                    SCOPED_TRACE("k " + std::to_string(k) + " n " + std::to_string(n) + " m " + std::to_string(m) + " splits " +
                                 std::to_string(splits) + (e5m2 ? " e5m2" : " e4m3"));
                    Workspace ws(m, n, splits);
                    const auto y = run_product(m, n, fp32, [&](void* out) {
                        gemm_mma_fp8w(w.view(), dx.get(), m, out, fp32, splits, 4, ws.view, nullptr);
                    });
                    EXPECT_TRUE(test::all_close(y, ref, 2e-3f, fp32 ? 1e-4f : 2e-3f));
                }
            }
        }
}

TEST(SimtFp8Quantize, RowsMatchTheDefinitionBitForBit) {
    const int m = 11, k = 96;
    auto x = test::round_to_half(test::random_floats(size_t(m) * k, -30, 30, 7));
    std::fill(x.begin() + 3 * k, x.begin() + 4 * k, 0.0f);  // an all-zero row: the scale floor
    DeviceArray<__half> dx(test::to_half(x));
    for (float static_scale : {0.0f, 0.05f}) {
        DeviceArray<uint8_t> codes(size_t(m) * k);
        DeviceArray<float> scales(static_cast<size_t>(m));
        quantize_rows_fp8(dx.get(), m, k, static_scale, codes.get(), scales.get(), nullptr);
        const auto c = codes.download();
        const auto s = scales.download();
        for (int r = 0; r < m; ++r) {
            float scale = static_scale;
            if (!(scale > 0)) {
                float amax = 0;
                for (int i = 0; i < k; ++i) amax = std::max(amax, std::fabs(x[size_t(r) * k + i]));
                scale = std::max(amax / 448.0f, 1.0f / (448.0f * 512.0f));
            }
            ASSERT_EQ(s[size_t(r)], scale) << "row " << r;
            for (int i = 0; i < k; ++i) ASSERT_EQ(c[size_t(r) * k + i], f32_to_fp8_e4m3(x[size_t(r) * k + i] / scale)) << r << ", " << i;
        }
    }
}

TEST(SimtFp8GemmW8A8, MatchesTheProductOfTheCodes) {
    // FP8 tensor cores exist from sm_89 (the SIMT harness reports 8.9); an older GPU never runs this.
    cudaDeviceProp prop;
    cuda::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    if (prop.major * 10 + prop.minor < 89)
        GTEST_SKIP() << "mma.sync e4m3 needs sm_89 or newer; this GPU is sm_" << prop.major << prop.minor
                     << " (its FP8 weights run weight-only, tested above)";
    uint64_t seed = 40;
    for (auto [k, n] : {std::pair{64, 64}, {160, 72}, {256, 136}})
        for (int m : {9, 70}) {
            Fp8Fixture w(k, n, false, seed++);
            std::vector<uint8_t> xc(size_t(m) * k);
            const auto xv = test::random_floats(xc.size(), -448, 448, seed++);
            for (size_t i = 0; i < xc.size(); ++i) xc[i] = f32_to_fp8_e4m3(xv[i]);
            const auto xs = test::random_floats(size_t(m), 1e-3f, 1e-2f, seed++);
            std::vector<float> ref(size_t(m) * n);
            for (int r = 0; r < m; ++r)
                for (int o = 0; o < n; ++o) {
                    double acc = 0;
                    for (int i = 0; i < k; ++i)
                        acc += double(fp8_e4m3_to_f32(xc[size_t(r) * k + i])) * fp8_e4m3_to_f32(w.codes[size_t(o) * k + i]);
                    ref[size_t(r) * n + o] = float(acc * xs[size_t(r)] * w.scales[size_t(o)]);
                }
            DeviceArray<uint8_t> dxc(xc);
            DeviceArray<float> dxs(xs);
            for (int splits : {1, 2}) {
                const bool fp32 = splits == 1;
                SCOPED_TRACE("k " + std::to_string(k) + " n " + std::to_string(n) + " m " + std::to_string(m) + " splits " + std::to_string(splits));
                Workspace ws(m, n, splits);
                const auto y = run_product(m, n, fp32, [&](void* out) {
                    gemm_fp8_mma(w.view(), dxc.get(), dxs.get(), m, out, fp32, splits, 4, ws.view, nullptr);
                });
                EXPECT_TRUE(test::all_close(y, ref, 1e-3f, fp32 ? 1e-5f : 2e-3f));
            }
        }
}

}  // namespace
}  // namespace folio::cuda
