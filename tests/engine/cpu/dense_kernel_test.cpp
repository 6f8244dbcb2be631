// The dense matmul kernel (F32/F16/BF16 weights) against a double reference, for odd sizes and
// several batch sizes; every instruction set present must give the same bits, and a row's result
// must not depend on the batch around it or on which rows a call covers. Batches of 2, 7 and 13
// tokens leave partial token tiles on every build; 97 rows of 2048 inputs span two row blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "engine/core/half.h"
#include "engine/cpu/kernels.h"

namespace folio::cpu {
namespace {

TEST(DenseKernel, MatchesReferenceAndIsBitwiseStable) {
    std::mt19937 rng(4);
    std::normal_distribution<float> nd;
    for (DType dt : {DType::F32, DType::F16, DType::BF16})
        for (auto [in, out, m] : {std::tuple{1, 3, 6}, {15, 9, 7}, {16, 17, 2}, {37, 11, 13}, {100, 23, 6}, {2048, 19, 6}, {2048, 97, 7}}) {
            std::vector<float> wf(size_t(in) * out);
            std::vector<uint16_t> wh(wf.size());
            for (size_t i = 0; i < wf.size(); ++i) {
                const float v = nd(rng);
                wh[i] = dt == DType::F16 ? f32_to_f16(v) : f32_to_bf16(v);
                wf[i] = dt == DType::F32 ? v : dt == DType::F16 ? f16_to_f32(wh[i]) : bf16_to_f32(wh[i]);
            }
            const DenseMatrix w{dt, out, in, dt == DType::F32 ? static_cast<const void*>(wf.data()) : wh.data()};
            std::vector<float> x(size_t(m) * in);
            for (auto& v : x) v = nd(rng);
            std::vector<float> first;
            for (const char* isa : {"generic", "avx2", "avx512", "amx"}) {
                const KernelTable* k = kernels_for(isa);
                if (!k) continue;
                std::vector<float> y(size_t(m) * out, NAN);
                k->dense_rows(w, 0, out, x.data(), m, y.data());
                for (int t = 0; t < m; ++t)
                    for (int o = 0; o < out; ++o) {
                        double ref = 0, mag = 0;
                        for (int i = 0; i < in; ++i) {
                            ref += double(wf[size_t(o) * in + i]) * x[size_t(t) * in + i];
                            mag += std::fabs(double(wf[size_t(o) * in + i]) * x[size_t(t) * in + i]);
                        }
                        ASSERT_NEAR(y[size_t(t) * out + o], ref, 1e-6 * mag + 1e-30) << isa << " " << dtype_name(dt) << " in " << in;
                    }
                if (first.empty()) first = y;
                EXPECT_EQ(std::memcmp(first.data(), y.data(), y.size() * sizeof(float)), 0) << isa << " differs from generic";
                // One token at a time and odd row ranges: the same bits.
                for (int t = 0; t < m; ++t) {
                    std::vector<float> y1(static_cast<size_t>(out), NAN);
                    for (int r = 0; r < out; r += 3) k->dense_rows(w, r, std::min(out, r + 3), x.data() + size_t(t) * in, 1, y1.data());
                    EXPECT_EQ(std::memcmp(y1.data(), y.data() + size_t(t) * out, size_t(out) * sizeof(float)), 0)
                        << isa << " " << dtype_name(dt) << " in " << in << " token " << t;
                }
            }
        }
}

TEST(DotKernel, EveryIsaAgreesWithGeneric) {
    std::mt19937 rng(3);
    std::normal_distribution<float> nd;
    const KernelTable* generic = kernels_for("generic");
    ASSERT_NE(generic, nullptr);
    for (int n : {1, 7, 16, 33, 128, 1000}) {
        std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
        for (auto& v : a) v = nd(rng);
        for (auto& v : b) v = nd(rng);
        double ref = 0;
        for (int i = 0; i < n; ++i) ref += double(a[size_t(i)]) * b[size_t(i)];
        const float g = generic->dot(a.data(), b.data(), n);
        EXPECT_NEAR(g, ref, 1e-5 * n);
        for (const char* isa : {"avx2", "avx512"})
            if (const KernelTable* k = kernels_for(isa)) {
                const float v = k->dot(a.data(), b.data(), n);
                EXPECT_EQ(std::memcmp(&v, &g, sizeof v), 0) << isa << " n=" << n;
            }
    }
}

}  // namespace
}  // namespace folio::cpu
