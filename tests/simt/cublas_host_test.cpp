// The SIMT harness's host cuBLAS (tests/simt/harness/cublas_host.h) against a plain double-precision
// reference, for every combination the backend's calls can take (op N/T on A and B, leading
// dimensions above the rows, beta 0 with a poisoned C and beta != 0, fp16 and fp32 outputs); the
// statuses it returns for what cuBLAS refuses and for what it does not implement; stream order and
// graph capture; and the backend's own CublasGemm on its own workspace.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "cublas_host.h"
#include "kernels/cublas_gemm.h"
#include "simt_launch.h"
#include "support/simt_test_util.h"

namespace folio::cuda {
namespace {

using test::DeviceArray;

// A cuBLAS handle that destroys itself.
class Handle {
public:
    Handle() { EXPECT_EQ(cublasCreate(&h_), CUBLAS_STATUS_SUCCESS); }
    ~Handle() { cublasDestroy(h_); }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    cublasHandle_t get() const { return h_; }

private:
    cublasHandle_t h_ = nullptr;
};

// A column-major matrix stored with leading dimension ld (>= its stored rows): host copy and device copy.
struct Matrix {
    int rows = 0, cols = 0, ld = 0;  // stored
    std::vector<float> host;         // fp16-exact values, ld * cols
    DeviceArray<__half> dev;

    Matrix(int r, int c, int ld_, uint64_t seed) : rows(r), cols(c), ld(ld_) {
        host = test::round_to_half(test::random_floats(size_t(ld) * size_t(c), -1.0f, 1.0f, seed));
        dev = DeviceArray<__half>(test::to_half(host));
    }
    // op(X)(r, c): X itself, or its transpose.
    float op(bool trans, int r, int c) const { return trans ? host[size_t(c) + size_t(r) * size_t(ld)] : host[size_t(r) + size_t(c) * size_t(ld)]; }
};

// C's contents as a float vector, whatever its type.
std::vector<float> download(const void* c, bool fp32, size_t n) {
    if (fp32) {
        std::vector<float> v(n);
        EXPECT_EQ(cudaMemcpy(v.data(), c, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        return v;
    }
    std::vector<__half> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), c, n * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    return test::from_half(h);
}

// C = alpha op(A) op(B) + beta C0 in double; `bound` is the fp32-accumulation error bound
// ((k + 4) roundings of eps 2^-24 on the sum of the terms' magnitudes).
struct Expected {
    double value, bound;
};
Expected reference(const Matrix& a, bool ta, const Matrix& b, bool tb, int i, int j, int k, float alpha, float beta, float c0) {
    double sum = 0, mag = 0;
    for (int p = 0; p < k; ++p) {
        const double t = double(a.op(ta, i, p)) * double(b.op(tb, p, j));
        sum += t;
        mag += std::fabs(t);
    }
    const double c_term = beta != 0.0f ? double(beta) * c0 : 0.0;
    return {double(alpha) * sum + c_term, std::ldexp(double(k + 4), -24) * (std::fabs(double(alpha)) * mag + std::fabs(c_term))};
}

// fp32 output: within the bound. fp16 output: one rounding of a value within the bound, and
// rounding is monotonic, so it lies between the roundings of the bound's ends.
::testing::AssertionResult matches(float got, const Expected& e, bool fp32) {
    const double lo = e.value - e.bound, hi = e.value + e.bound;
    const bool ok = fp32 ? (got >= lo && got <= hi)
                         : (got >= f16_to_f32(f32_to_f16(float(lo))) && got <= f16_to_f32(f32_to_f16(float(hi))));
    if (ok) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", expected " << e.value << " +- " << e.bound << (fp32 ? " (fp32)" : " (fp16)");
}

struct Case {
    bool ta, tb, c_fp32, padded;
    float alpha, beta;
    std::string name() const {
        return std::string(ta ? "T" : "N") + (tb ? "T" : "N") + (c_fp32 ? " fp32" : " fp16") + (padded ? " ld>rows" : " ld=rows") +
               " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta);
    }
};

// Runs one case and checks every element of C, and that C's padding rows (ldc > m) are untouched.
void check_case(const Case& cs, int m, int n, int k, uint64_t seed) {
    SCOPED_TRACE(cs.name() + " m " + std::to_string(m) + " n " + std::to_string(n) + " k " + std::to_string(k));
    const int pad = cs.padded ? 3 : 0;
    const Matrix a(cs.ta ? k : m, cs.ta ? m : k, (cs.ta ? k : m) + pad, seed);
    const Matrix b(cs.tb ? n : k, cs.tb ? k : n, (cs.tb ? n : k) + pad, seed + 1);
    const int ldc = m + pad;
    const size_t c_elems = size_t(ldc) * size_t(n);
    // beta 0: C is all NaN and must not be read; else C holds values the result must scale and add.
    std::vector<float> c0 = cs.beta == 0.0f ? std::vector<float>(c_elems, NAN) : test::round_to_half(test::random_floats(c_elems, -2, 2, seed + 2));
    DeviceArray<float> c32(c_elems);
    DeviceArray<__half> c16(c_elems);
    void* c = cs.c_fp32 ? static_cast<void*>(c32.get()) : static_cast<void*>(c16.get());
    if (cs.c_fp32)
        c32.upload(c0);
    else
        c16.upload(test::to_half(c0));
    Handle h;
    ASSERT_EQ(cublasGemmEx(h.get(), cs.ta ? CUBLAS_OP_T : CUBLAS_OP_N, cs.tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &cs.alpha,
                           a.dev.get(), CUDA_R_16F, a.ld, b.dev.get(), CUDA_R_16F, b.ld, &cs.beta, c,
                           cs.c_fp32 ? CUDA_R_32F : CUDA_R_16F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
    const std::vector<float> got = download(c, cs.c_fp32, c_elems);
    int bad = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < ldc; ++i) {
            const size_t at = size_t(i) + size_t(j) * size_t(ldc);
            if (i >= m) {  // padding: the same bits as before
                const bool same = std::isnan(c0[at]) ? std::isnan(got[at]) : got[at] == c0[at];
                if (!same && bad++ < 5) ADD_FAILURE() << "padding row " << i << " of column " << j << " was written";
                continue;
            }
            const auto r = matches(got[at], reference(a, cs.ta, b, cs.tb, i, j, k, cs.alpha, cs.beta, c0[at]), cs.c_fp32);
            if (!r && bad++ < 5) ADD_FAILURE() << "C(" << i << ", " << j << "): " << r.message();
        }
    EXPECT_EQ(bad, 0);
}

TEST(HostCublas, GemmExMatchesTheReferenceInEveryCombinationTheBackendCanUse) {
    uint64_t seed = 1;
    for (bool ta : {false, true})
        for (bool tb : {false, true})
            for (bool c_fp32 : {false, true})
                for (bool padded : {false, true})
                    for (float beta : {0.0f, 0.75f}) {
                        const Case cs{ta, tb, c_fp32, padded, beta == 0.0f ? 1.0f : -1.5f, beta};
                        check_case(cs, 37, 13, 45, seed);  // k not a multiple of the eight partial sums
                        seed += 3;
                    }
    // Shapes like the backend's: many output features, few or many rows, k a multiple of 8.
    check_case(Case{true, false, true, false, 1.0f, 0.0f}, 344, 5, 64, 100);
    check_case(Case{false, false, false, false, 1.0f, 0.0f}, 96, 70, 520, 101);
}

TEST(HostCublas, SizesWithNothingToMultiplyScaleCOrReturn) {
    Handle h;
    const Matrix a(4, 3, 4, 7), b(3, 5, 3, 8);
    const std::vector<float> c0 = test::round_to_half(test::random_floats(20, -1, 1, 9));
    DeviceArray<float> c(c0);
    const float one = 1.0f, half = 0.5f, zero = 0.0f;
    // m or n zero: success, nothing written (C's pointer is not even looked at).
    EXPECT_EQ(cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 0, 5, 3, &one, a.dev.get(), CUDA_R_16F, 4, b.dev.get(), CUDA_R_16F, 3,
                           &half, nullptr, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 4, 0, 3, &one, a.dev.get(), CUDA_R_16F, 4, b.dev.get(), CUDA_R_16F, 3,
                           &half, nullptr, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(c.download(), c0);
    // k zero: C = beta C (A and B are not read: null here).
    EXPECT_EQ(cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 4, 5, 0, &one, nullptr, CUDA_R_16F, 4, nullptr, CUDA_R_16F, 1, &half,
                           c.get(), CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
    std::vector<float> want(c0);
    for (float& v : want) v *= 0.5f;
    EXPECT_EQ(c.download(), want);
    // alpha zero: A and B are not read either (NaN in them changes nothing); beta zero then writes zeros.
    DeviceArray<__half> nan_a(size_t(12));
    nan_a.poison();
    EXPECT_EQ(cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 4, 5, 3, &zero, nan_a.get(), CUDA_R_16F, 4, b.dev.get(), CUDA_R_16F, 3,
                           &zero, c.get(), CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(c.download(), std::vector<float>(20, 0.0f));
}

// One valid call (m 4, n 5, k 3; A N 4x3, B N 3x5, C fp32 4x5), and ways to spoil it.
struct Call {
    cublasHandle_t h;
    cublasOperation_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N;
    int m = 4, n = 5, k = 3;
    const float* alpha;
    const void* a;
    cudaDataType at = CUDA_R_16F;
    int lda = 4;
    const void* b;
    cudaDataType bt = CUDA_R_16F;
    int ldb = 3;
    const float* beta;
    void* c;
    cudaDataType ct = CUDA_R_32F;
    int ldc = 4;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT;
    cublasStatus_t run() const {
        return cublasGemmEx(h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, compute, algo);
    }
};

TEST(HostCublas, RefusesWhatCublasRefusesAndWhatItDoesNotImplementWithoutWriting) {
    Handle h;
    const Matrix a(4, 3, 4, 11), b(3, 5, 3, 12);
    DeviceArray<float> c(size_t(20));
    const float one = 1.0f, zero = 0.0f;
    const Call ok{h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 4, 5, 3, &one, a.dev.get(), CUDA_R_16F, 4, b.dev.get(), CUDA_R_16F, 3, &zero, c.get()};
    c.poison();
    ASSERT_EQ(ok.run(), CUBLAS_STATUS_SUCCESS);
    EXPECT_STREQ(simt::cublas_last_refusal(h.get()), "");

    struct Bad {
        const char* what;
        Call call;
        cublasStatus_t status;
        const char* reason;  // in cublas_last_refusal
    };
    auto with = [&](auto&& change) {
        Call x = ok;
        change(x);
        return x;
    };
    const std::vector<Bad> bad = {
        {"negative m", with([](Call& x) { x.m = -1; }), CUBLAS_STATUS_INVALID_VALUE, "negative size"},
        {"negative k", with([](Call& x) { x.k = -2; }), CUBLAS_STATUS_INVALID_VALUE, "negative size"},
        {"lda < m (op N)", with([](Call& x) { x.lda = 3; }), CUBLAS_STATUS_INVALID_VALUE, "lda 3 < 4"},
        {"lda < k (op T)", with([](Call& x) { x.ta = CUBLAS_OP_T, x.lda = 2; }), CUBLAS_STATUS_INVALID_VALUE, "lda 2 < 3"},
        {"ldb < k (op N)", with([](Call& x) { x.ldb = 2; }), CUBLAS_STATUS_INVALID_VALUE, "ldb 2 < 3"},
        {"ldb < n (op T)", with([](Call& x) { x.tb = CUBLAS_OP_T, x.ldb = 4; }), CUBLAS_STATUS_INVALID_VALUE, "ldb 4 < 5"},
        {"ldc < m", with([](Call& x) { x.ldc = 3; }), CUBLAS_STATUS_INVALID_VALUE, "ldc 3 < 4"},
        {"not an operation", with([](Call& x) { x.ta = cublasOperation_t(7); }), CUBLAS_STATUS_INVALID_VALUE, "cublasOperation_t"},
        {"null alpha", with([](Call& x) { x.alpha = nullptr; }), CUBLAS_STATUS_INVALID_VALUE, "alpha or beta"},
        {"op C", with([](Call& x) { x.tb = CUBLAS_OP_C, x.ldb = 5; }), CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_OP_N and CUBLAS_OP_T"},
        {"fp16 compute", with([](Call& x) { x.compute = CUBLAS_COMPUTE_16F; }), CUBLAS_STATUS_NOT_SUPPORTED, "compute type 64"},
        {"pedantic fp32 compute", with([](Call& x) { x.compute = CUBLAS_COMPUTE_32F_PEDANTIC; }), CUBLAS_STATUS_NOT_SUPPORTED, "compute type 69"},
        {"tf32 compute", with([](Call& x) { x.compute = CUBLAS_COMPUTE_32F_FAST_TF32; }), CUBLAS_STATUS_NOT_SUPPORTED, "compute type 77"},
        {"bf16 A", with([](Call& x) { x.at = CUDA_R_16BF; }), CUBLAS_STATUS_NOT_SUPPORTED, "A CUDA_R_16BF"},
        {"fp32 B", with([](Call& x) { x.bt = CUDA_R_32F; }), CUBLAS_STATUS_NOT_SUPPORTED, "B CUDA_R_32F"},
        {"bf16 C", with([](Call& x) { x.ct = CUDA_R_16BF; }), CUBLAS_STATUS_NOT_SUPPORTED, "C CUDA_R_16BF"},
        {"fp64 C", with([](Call& x) { x.ct = CUDA_R_64F; }), CUBLAS_STATUS_NOT_SUPPORTED, "C CUDA_R_64F"},
        {"explicit algorithm", with([](Call& x) { x.algo = CUBLAS_GEMM_ALGO0; }), CUBLAS_STATUS_NOT_SUPPORTED, "algo 0"},
        {"tensor-op algorithm", with([](Call& x) { x.algo = CUBLAS_GEMM_DEFAULT_TENSOR_OP; }), CUBLAS_STATUS_NOT_SUPPORTED, "algo 99"},
        {"null handle", with([](Call& x) { x.h = nullptr; }), CUBLAS_STATUS_NOT_INITIALIZED, ""},
    };
    const simt::CublasActivity before = simt::cublas_activity();
    for (const Bad& x : bad) {
        SCOPED_TRACE(x.what);
        c.poison();
        EXPECT_EQ(x.call.run(), x.status);
        if (x.call.h) {
            EXPECT_NE(std::string(simt::cublas_last_refusal(h.get())).find(x.reason), std::string::npos) << simt::cublas_last_refusal(h.get());
        }
        for (float v : c.download()) ASSERT_TRUE(std::isnan(v)) << "a refused call wrote C";
    }
    EXPECT_EQ(simt::cublas_activity().gemms, before.gemms);
    EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED");
    EXPECT_NE(std::string(cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED)).find("host cuBLAS"), std::string::npos);
    // Handle-level calls.
    EXPECT_EQ(cublasSetStream(nullptr, nullptr), CUBLAS_STATUS_NOT_INITIALIZED);
    DeviceArray<unsigned char> ws(size_t(4096));
    EXPECT_EQ(cublasSetWorkspace(h.get(), ws.get() + 16, 1024), CUBLAS_STATUS_INVALID_VALUE);  // cuBLAS wants 256-byte alignment
    EXPECT_EQ(cublasSetWorkspace(h.get(), ws.get(), 4096), CUBLAS_STATUS_SUCCESS);
}

TEST(HostCublas, MatricesOutsideTheirAllocationOrAnOutputOverlappingAnInputFault) {
    Handle h;
    const Matrix a(4, 3, 4, 13), b(3, 5, 3, 14);
    DeviceArray<float> c(size_t(20));
    const float one = 1.0f, zero = 0.0f;
    Call x{h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 4, 5, 3, &one, a.dev.get(), CUDA_R_16F, 4, b.dev.get(), CUDA_R_16F, 3, &zero, c.get()};
    Call wide_a = x;
    wide_a.lda = 5;  // valid for cuBLAS, but 5 * 2 + 4 elements run past A's 12
    EXPECT_THROW(wide_a.run(), simt::SimtError);
    Call wide_c = x;
    wide_c.ldc = 5;
    EXPECT_THROW(wide_c.run(), simt::SimtError);
    std::vector<float> host(20);
    Call host_c = x;
    host_c.c = host.data();  // host memory: a device kernel cannot write it
    EXPECT_THROW(host_c.run(), simt::SimtError);
    DeviceArray<__half> both(size_t(64));
    Call overlap = x;
    overlap.a = both.get();
    overlap.c = both.get() + 8;
    overlap.ct = CUDA_R_16F;
    EXPECT_THROW(overlap.run(), simt::SimtError);
}

TEST(HostCublas, RunsInStreamOrderAndIsRecordedByGraphCaptureWithScalarsReadAtTheCall) {
    Handle h;
    const Matrix a(6, 4, 6, 21);
    Matrix b(4, 3, 4, 22);
    DeviceArray<float> c(size_t(18));
    c.poison();
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cublasSetStream(h.get(), s), CUBLAS_STATUS_SUCCESS);
    cudaStream_t got = nullptr;
    ASSERT_EQ(cublasGetStream(h.get(), &got), CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(got, s);
    float alpha = 2.0f, beta = 0.0f;
    Handle other;
    DeviceArray<float> d(size_t(18));
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ASSERT_EQ(cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 6, 3, 4, &alpha, a.dev.get(), CUDA_R_16F, 6, b.dev.get(), CUDA_R_16F, 4,
                           &beta, c.get(), CUDA_R_32F, 6, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
    alpha = 100.0f;  // host-mode scalars were read by the call: the graph keeps 2
    // Another handle on the legacy stream while a stream is captured fails, as any work there would.
    EXPECT_EQ(cublasGemmEx(other.get(), CUBLAS_OP_N, CUBLAS_OP_N, 6, 3, 4, &alpha, a.dev.get(), CUDA_R_16F, 6, b.dev.get(),
                           CUDA_R_16F, 4, &beta, d.get(), CUDA_R_32F, 6, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_EXECUTION_FAILED);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
    for (float v : c.download()) ASSERT_TRUE(std::isnan(v)) << "captured work ran during capture";
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph), cudaSuccess);
    // New values in B before the replay: the graph reads the buffers when it runs.
    b.host = test::round_to_half(test::random_floats(b.host.size(), -1, 1, 23));
    b.dev.upload(test::to_half(b.host));
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    const auto out = c.download();
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 6; ++i)
            EXPECT_TRUE(matches(out[size_t(i + j * 6)], reference(a, false, b, false, i, j, 4, 2.0f, 0.0f, 0.0f), true)) << i << ", " << j;
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
}

TEST(HostCublas, SetStreamPutsTheHandleBackOnTheDefaultWorkspace) {
    Handle h;
    const Matrix a(4, 3, 4, 31), b(3, 5, 3, 32);
    DeviceArray<float> c(size_t(20));
    DeviceArray<unsigned char> ws(size_t(1) << 16);
    const float one = 1.0f, zero = 0.0f;
    const Call x{h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 4, 5, 3, &one, a.dev.get(), CUDA_R_16F, 4, b.dev.get(), CUDA_R_16F, 3, &zero, c.get()};
    const simt::CublasActivity before = simt::cublas_activity();
    ASSERT_EQ(cublasSetStream(h.get(), nullptr), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cublasSetWorkspace(h.get(), ws.get(), ws.size()), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(x.run(), CUBLAS_STATUS_SUCCESS);  // on ours
    ASSERT_EQ(cublasSetStream(h.get(), nullptr), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(x.run(), CUBLAS_STATUS_SUCCESS);  // back on the library's pool
    const simt::CublasActivity after = simt::cublas_activity();
    EXPECT_EQ(after.gemms - before.gemms, 2u);
    EXPECT_EQ(after.gemms_on_default_workspace - before.gemms_on_default_workspace, 1u);
}

// The backend's own wrapper, as LinearRunner calls it: y[m, n] = x[m, k] . W^T with W [n, k] (dense)
// or [k, n] (a dequantised AWQ matrix), fp16 or fp32 y; every call on its own workspace, also
// when it is captured into a graph.
TEST(HostCublas, CublasGemmComputesTheLinearsOnItsOwnWorkspace) {
    const int m = 11, k = 72, n = 40;
    CublasGemm blas;
    const std::vector<float> x = test::round_to_half(test::random_floats(size_t(m) * k, -1, 1, 41));
    const std::vector<float> w = test::round_to_half(test::random_floats(size_t(n) * k, -0.2f, 0.2f, 42));  // [n, k]
    std::vector<float> w_kn(size_t(k) * n);  // the same matrix as [k, n]
    for (int o = 0; o < n; ++o)
        for (int p = 0; p < k; ++p) w_kn[size_t(p) * n + size_t(o)] = w[size_t(o) * k + size_t(p)];
    DeviceArray<__half> dx(test::to_half(x)), dw(test::to_half(w)), dw_kn(test::to_half(w_kn));
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    const simt::CublasActivity before = simt::cublas_activity();
    int calls = 0;
    for (bool kn : {false, true})
        for (bool fp32 : {false, true})
            for (bool captured : {false, true}) {
                SCOPED_TRACE(std::string(kn ? "W [k, n]" : "W [n, k]") + (fp32 ? " fp32" : " fp16") + (captured ? " captured" : ""));
                DeviceArray<float> y32(size_t(m) * n);
                DeviceArray<__half> y16(size_t(m) * n);
                y32.poison();
                y16.poison();
                void* y = fp32 ? static_cast<void*>(y32.get()) : static_cast<void*>(y16.get());
                auto call = [&] { blas.gemm(kn ? dw_kn.get() : dw.get(), kn, dx.get(), m, k, n, y, fp32, s); };
                if (captured) {
                    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
                    call();
                    cudaGraph_t g = nullptr;
                    cudaGraphExec_t e = nullptr;
                    ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
                    ASSERT_EQ(cudaGraphInstantiate(&e, g), cudaSuccess);
                    ASSERT_EQ(cudaGraphLaunch(e, s), cudaSuccess);
                    cudaGraphExecDestroy(e);
                    cudaGraphDestroy(g);
                } else {
                    call();
                }
                ++calls;
                ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
                const auto out = download(y, fp32, size_t(m) * n);
                int bad = 0;
                for (int r = 0; r < m; ++r)
                    for (int o = 0; o < n; ++o) {
                        double sum = 0, mag = 0;
                        for (int p = 0; p < k; ++p) {
                            const double t = double(x[size_t(r) * k + size_t(p)]) * w[size_t(o) * k + size_t(p)];
                            sum += t;
                            mag += std::fabs(t);
                        }
                        const auto ok = matches(out[size_t(r) * n + size_t(o)], Expected{sum, std::ldexp(double(k + 4), -24) * mag}, fp32);
                        if (!ok && bad++ < 5) ADD_FAILURE() << "y(" << r << ", " << o << "): " << ok.message();
                    }
                EXPECT_EQ(bad, 0);
            }
    const simt::CublasActivity after = simt::cublas_activity();
    EXPECT_EQ(after.gemms - before.gemms, uint64_t(calls));
    EXPECT_EQ(after.gemms_on_default_workspace - before.gemms_on_default_workspace, 0u)
        << "cublasSetStream resets the workspace: CublasGemm must set its own again before every GEMM";
    EXPECT_EQ(after.gemms_fp16_out - before.gemms_fp16_out, uint64_t(calls / 2));
    cudaStreamDestroy(s);
}

}  // namespace
}  // namespace folio::cuda
