// Real cuBLAS on the device: fp16 GEMMs through CublasGemm (dense weights) and the
// dequantise-then-cuBLAS path for AWQ at large batches, against cpu::linear. (The SIMT build runs
// CublasGemm against the harness's host cuBLAS: tests/simt/cublas_host_test.cpp.)
#include <gtest/gtest.h>

#include "engine/core/thread_pool.h"
#include "engine/cpu/ops.h"
#include "engine/model/awq.h"
#include "kernels/cublas_gemm.h"
#include "kernels/gemm.h"
#include "support/simt_test_util.h"

namespace folio::cuda {
namespace {

using test::DeviceArray;

std::vector<float> cpu_linear(const Linear& l, const std::vector<float>& x, int m) {
    ThreadPool pool(0);
    std::vector<float> y(size_t(m) * l.out);
    cpu::linear(l, x.data(), m, y.data(), pool);
    return y;
}

template <class Fn>
std::vector<float> run(int m, int n, bool fp32, Fn&& fn) {
    if (fp32) {
        DeviceArray<float> y(size_t(m) * n);
        y.poison();
        fn(static_cast<void*>(y.get()));
        check(cudaDeviceSynchronize(), "sync");
        return y.download();
    }
    DeviceArray<__half> y(size_t(m) * n);
    y.poison();
    fn(static_cast<void*>(y.get()));
    check(cudaDeviceSynchronize(), "sync");
    return test::from_half(y.download());
}

TEST(GpuCublas, DenseGemmMatchesCpuLinear) {
    CublasGemm blas;
    uint64_t seed = 1;
    for (const auto& [k, n] : {std::pair{64, 344}, std::pair{172, 64}, std::pair{4096, 1000}}) {
        const auto wf = test::round_to_half(test::random_floats(size_t(n) * k, -0.05f, 0.05f, seed++));
        std::vector<uint16_t> bits(wf.size());
        for (size_t i = 0; i < wf.size(); ++i) bits[i] = f32_to_f16(wf[i]);
        Linear l;
        l.kind = Linear::Kind::Dense;
        l.in = k;
        l.out = n;
        l.dense = DenseMatrix{DType::F16, n, k, bits.data()};
        DeviceArray<__half> dw(test::to_half(wf));
        for (int m : {1, 5, 64, 300}) {
            const auto x = test::round_to_half(test::random_floats(size_t(m) * k, -1, 1, seed++));
            const auto ref = cpu_linear(l, x, m);
            DeviceArray<__half> dx(test::to_half(x));
            for (bool fp32 : {true, false}) {
                SCOPED_TRACE("k " + std::to_string(k) + " n " + std::to_string(n) + " m " + std::to_string(m));
                const auto y = run(m, n, fp32, [&](void* out) { blas.gemm(dw.get(), false, dx.get(), m, k, n, out, fp32, nullptr); });
                EXPECT_TRUE(test::all_close(y, ref, fp32 ? 2e-3f : 4e-3f, fp32 ? 2e-3f : 4e-3f));
            }
        }
    }
}

TEST(GpuCublas, AwqDequantizeThenCublasMatchesCpuLinearAndTheTensorCoreKernel) {
    CublasGemm blas;
    const int k = 1024, n = 768, g = 128;
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<int> nib(0, 15);
    std::vector<uint8_t> q(size_t(k) * n), z(size_t(k / g) * n);
    for (auto& v : q) v = uint8_t(nib(rng));
    for (auto& v : z) v = uint8_t(nib(rng));
    const auto qw = awq_pack(q, k, n), qz = awq_pack(z, k / g, n);
    std::vector<uint16_t> sc;
    for (float v : test::random_floats(size_t(k / g) * n, 0.001f, 0.01f, 6)) sc.push_back(f32_to_f16(v));
    Linear l;
    l.kind = Linear::Kind::Awq;
    l.in = k;
    l.out = n;
    l.awq = AwqMatrix{k, n, g, qw.data(), qz.data(), sc.data()};
    std::vector<__half> sch(sc.size());
    for (size_t i = 0; i < sc.size(); ++i) sch[i] = __ushort_as_half(sc[i]);
    DeviceArray<int32_t> dq(qw), dz(qz);
    DeviceArray<__half> ds(sch), deq(size_t(k) * n);
    const AwqWeightsView v{dq.get(), dz.get(), ds.get(), k, n, g};
    DeviceArray<float> partials(size_t(4) * 512 * n);
    DeviceArray<int> counters(size_t(split_k_counters(512, n)));
    counters.upload(std::vector<int>(counters.size(), 0));
    const SplitKWorkspace ws{partials.get(), partials.size(), counters.get(), int(counters.size())};
    for (int m : {16, 512}) {
        const auto x = test::round_to_half(test::random_floats(size_t(m) * k, -1, 1, uint64_t(m)));
        const auto ref = cpu_linear(l, x, m);
        DeviceArray<__half> dx(test::to_half(x));
        const auto a = run(m, n, true, [&](void* out) {
            awq_dequantize(v, deq.get(), nullptr);
            blas.gemm(deq.get(), true, dx.get(), m, k, n, out, true, nullptr);
        });
        const auto b = run(m, n, true, [&](void* out) { gemm_mma_awq(v, dx.get(), m, out, true, 0, 132, ws, nullptr); });
        EXPECT_TRUE(test::all_close(a, ref, 3e-3f, 3e-3f)) << "dequantise + cuBLAS, m " << m;
        EXPECT_TRUE(test::all_close(b, ref, 3e-3f, 3e-3f)) << "tensor-core kernel, m " << m;
    }
}

}  // namespace
}  // namespace folio::cuda
