// Host implementation of the cuBLAS subset in cublas_host.h. The GEMM is not a kernel under test,
// only the reference semantics the backend relies on: plain loops, fp32 accumulation in a fixed
// order, fast enough that the end-to-end tests can run the GPU's own linear policy.
#include "cublas_host.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/core/half.h"
#include "simt_launch.h"

struct SimtCublasContext {
    cudaStream_t stream = nullptr;
    bool own_workspace = false;  // false: the library's default pool (after create and every cublasSetStream)
    std::string last_refusal;
};

namespace {

folio::simt::CublasActivity& activity() {
    static folio::simt::CublasActivity a;  // the emulated device's, like runtime.cpp's allocation table
    return a;
}

cublasStatus_t refuse(cublasHandle_t h, cublasStatus_t status, const std::string& why) {
    const std::string msg = std::string(cublasGetStatusName(status)) + ": " + why;
    if (h) h->last_refusal = msg;
    std::fprintf(stderr, "host cuBLAS (SIMT harness) refused a call: %s\n", msg.c_str());
    return status;
}

const char* type_name(cudaDataType t) {
    switch (t) {
        case CUDA_R_32F: return "CUDA_R_32F";
        case CUDA_R_64F: return "CUDA_R_64F";
        case CUDA_R_16F: return "CUDA_R_16F";
        case CUDA_R_8I: return "CUDA_R_8I";
        case CUDA_R_32I: return "CUDA_R_32I";
        case CUDA_R_16BF: return "CUDA_R_16BF";
    }
    return "an unknown cudaDataType";
}

// Every element of A and B is converted once per use: a table beats the bit-exact function's branches.
const std::array<float, 65536>& half_to_float() {
    static const std::array<float, 65536> table = [] {
        std::array<float, 65536> t{};
        for (uint32_t i = 0; i < 65536; ++i) t[i] = folio::f16_to_f32(uint16_t(i));
        return t;
    }();
    return table;
}

// A matrix as cuBLAS sees it: column-major with leading dimension ld; op(X) is rows x cols.
struct Operand {
    const uint16_t* data;
    bool trans;
    int ld;
    int rows, cols;  // of op(X)
    // Elements from the first to the last one op(X) touches.
    size_t extent() const {
        const int stored_rows = trans ? cols : rows, stored_cols = trans ? rows : cols;
        return size_t(ld) * size_t(stored_cols - 1) + size_t(stored_rows);
    }
};

// op(X)(r, c) for c = 0..cols-1 (trans: a contiguous stored column; else a strided stored row).
void load_row(const Operand& x, int r, float* out) {
    const auto& t = half_to_float();
    if (x.trans) {
        const uint16_t* p = x.data + size_t(r) * size_t(x.ld);
        for (int c = 0; c < x.cols; ++c) out[c] = t[p[c]];
    } else {
        for (int c = 0; c < x.cols; ++c) out[c] = t[x.data[size_t(r) + size_t(c) * size_t(x.ld)]];
    }
}

// op(X)(r, c) for r = 0..rows-1, i.e. column c of op(X).
void load_col(const Operand& x, int c, float* out) {
    const auto& t = half_to_float();
    if (x.trans) {
        for (int r = 0; r < x.rows; ++r) out[r] = t[x.data[size_t(c) + size_t(r) * size_t(x.ld)]];
    } else {
        const uint16_t* p = x.data + size_t(c) * size_t(x.ld);
        for (int r = 0; r < x.rows; ++r) out[r] = t[p[r]];
    }
}

// fp32 accumulation in eight interleaved partial sums (the compiler vectorises them), summed in a fixed tree.
float dot(const float* a, const float* b, int k) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int p = 0;
    for (; p + 8 <= k; p += 8)
        for (int u = 0; u < 8; ++u) s[u] += a[p + u] * b[p + u];
    float t = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (; p < k; ++p) t += a[p] * b[p];
    return t;
}

struct Gemm {
    Operand a, b;  // op(A) m x k, op(B) k x n
    int m, n, k;
    float alpha, beta;
    void* c;
    bool c_fp32;
    int ldc;
    bool own_workspace;
};

size_t bytes_of(const Operand& x) { return x.extent() * 2; }

void check_memory(const Gemm& g) {
    using folio::simt::SimtError;
    const size_t c_bytes = (size_t(g.ldc) * size_t(g.n - 1) + size_t(g.m)) * (g.c_fp32 ? 4 : 2);
    const bool reads_ab = g.k > 0 && g.alpha != 0.0f;
    auto where = [](const void* p, size_t bytes) {
        char buf[96];
        std::snprintf(buf, sizeof(buf), " [%p, +%zu bytes)", p, bytes);
        return std::string(buf);
    };
    if (reads_ab) {
        if (!folio::simt::is_device_range(g.a.data, bytes_of(g.a)))
            throw SimtError("cublasGemmEx: A" + where(g.a.data, bytes_of(g.a)) + " is not inside one cudaMalloc allocation (lda, m, k too large?)");
        if (!folio::simt::is_device_range(g.b.data, bytes_of(g.b)))
            throw SimtError("cublasGemmEx: B" + where(g.b.data, bytes_of(g.b)) + " is not inside one cudaMalloc allocation (ldb, k, n too large?)");
    }
    if (!folio::simt::is_device_range(g.c, c_bytes))
        throw SimtError("cublasGemmEx: C" + where(g.c, c_bytes) + " is not inside one cudaMalloc allocation (ldc, m, n too large?)");
    auto overlaps = [&](const void* p, size_t bytes) {
        const auto* x = static_cast<const char*>(p);
        const auto* y = static_cast<const char*>(g.c);
        return x < y + c_bytes && y < x + bytes;
    };
    if (reads_ab && (overlaps(g.a.data, bytes_of(g.a)) || overlaps(g.b.data, bytes_of(g.b))))
        throw SimtError("cublasGemmEx: C overlaps A or B (undefined in cuBLAS)");
}

void run(const Gemm& g) {
    check_memory(g);  // again at execution: a graph may be replayed after a buffer was freed
    const bool reads_ab = g.k > 0 && g.alpha != 0.0f;
    std::vector<float> b_cols, a_row(size_t(g.k));
    if (reads_ab) {
        b_cols.resize(size_t(g.n) * size_t(g.k));
        for (int j = 0; j < g.n; ++j) load_col(g.b, j, &b_cols[size_t(j) * size_t(g.k)]);
    }
    const auto& t = half_to_float();
    for (int i = 0; i < g.m; ++i) {
        if (reads_ab) load_row(g.a, i, a_row.data());
        for (int j = 0; j < g.n; ++j) {
            const size_t at = size_t(i) + size_t(j) * size_t(g.ldc);
            float v = reads_ab ? g.alpha * dot(a_row.data(), &b_cols[size_t(j) * size_t(g.k)], g.k) : 0.0f;
            if (g.beta != 0.0f)  // beta 0: C is not read (it may hold NaN), as cuBLAS documents
                v += g.beta * (g.c_fp32 ? static_cast<const float*>(g.c)[at] : t[static_cast<const uint16_t*>(g.c)[at]]);
            if (g.c_fp32)
                static_cast<float*>(g.c)[at] = v;
            else
                static_cast<uint16_t*>(g.c)[at] = folio::f32_to_f16(v);  // one rounding, to nearest even
        }
    }
    auto& act = activity();
    act.gemms++;
    if (!g.own_workspace) act.gemms_on_default_workspace++;
    (g.c_fp32 ? act.gemms_fp32_out : act.gemms_fp16_out)++;
}

bool valid_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C || op == CUBLAS_OP_CONJG; }

}  // namespace

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
    if (!handle) return refuse(nullptr, CUBLAS_STATUS_INVALID_VALUE, "cublasCreate: handle pointer is null");
    *handle = new SimtCublasContext;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
    if (!handle) return refuse(nullptr, CUBLAS_STATUS_NOT_INITIALIZED, "cublasDestroy: null handle");
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
    if (!handle) return refuse(nullptr, CUBLAS_STATUS_NOT_INITIALIZED, "cublasSetStream: null handle");
    handle->stream = stream;
    handle->own_workspace = false;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream) {
    if (!handle) return refuse(nullptr, CUBLAS_STATUS_NOT_INITIALIZED, "cublasGetStream: null handle");
    if (!stream) return refuse(handle, CUBLAS_STATUS_INVALID_VALUE, "cublasGetStream: stream pointer is null");
    *stream = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void* workspace, size_t workspace_bytes) {
    if (!handle) return refuse(nullptr, CUBLAS_STATUS_NOT_INITIALIZED, "cublasSetWorkspace: null handle");
    if (reinterpret_cast<uintptr_t>(workspace) % 256 != 0)
        return refuse(handle, CUBLAS_STATUS_INVALID_VALUE, "cublasSetWorkspace: the workspace is not 256-byte aligned");
    (void)workspace_bytes;  // the host GEMM needs none; what matters is that the caller's is in use
    handle->own_workspace = true;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                            const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B, cudaDataType Btype,
                            int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo) {
    if (!handle) return refuse(nullptr, CUBLAS_STATUS_NOT_INITIALIZED, "cublasGemmEx: null handle");
    const std::string at = "cublasGemmEx(m " + std::to_string(m) + ", n " + std::to_string(n) + ", k " + std::to_string(k) + "): ";
    // What cuBLAS itself refuses.
    if (!valid_op(transa) || !valid_op(transb)) return refuse(handle, CUBLAS_STATUS_INVALID_VALUE, at + "transa/transb is not a cublasOperation_t");
    if (m < 0 || n < 0 || k < 0) return refuse(handle, CUBLAS_STATUS_INVALID_VALUE, at + "negative size");
    const int a_rows = transa == CUBLAS_OP_N ? m : k, b_rows = transb == CUBLAS_OP_N ? k : n;
    if (lda < std::max(1, a_rows))
        return refuse(handle, CUBLAS_STATUS_INVALID_VALUE, at + "lda " + std::to_string(lda) + " < " + std::to_string(std::max(1, a_rows)));
    if (ldb < std::max(1, b_rows))
        return refuse(handle, CUBLAS_STATUS_INVALID_VALUE, at + "ldb " + std::to_string(ldb) + " < " + std::to_string(std::max(1, b_rows)));
    if (ldc < std::max(1, m))
        return refuse(handle, CUBLAS_STATUS_INVALID_VALUE, at + "ldc " + std::to_string(ldc) + " < " + std::to_string(std::max(1, m)));
    if (!alpha || !beta) return refuse(handle, CUBLAS_STATUS_INVALID_VALUE, at + "alpha or beta is null");
    // What cuBLAS would compute but this host version does not.
    if (transa == CUBLAS_OP_C || transa == CUBLAS_OP_CONJG || transb == CUBLAS_OP_C || transb == CUBLAS_OP_CONJG)
        return refuse(handle, CUBLAS_STATUS_NOT_SUPPORTED, at + "only CUBLAS_OP_N and CUBLAS_OP_T are implemented");
    if (computeType != CUBLAS_COMPUTE_32F)
        return refuse(handle, CUBLAS_STATUS_NOT_SUPPORTED,
                      at + "compute type " + std::to_string(int(computeType)) + " is not implemented (only CUBLAS_COMPUTE_32F)");
    if (Atype != CUDA_R_16F || Btype != CUDA_R_16F)
        return refuse(handle, CUBLAS_STATUS_NOT_SUPPORTED,
                      at + "A " + type_name(Atype) + ", B " + type_name(Btype) + ": only CUDA_R_16F inputs are implemented");
    if (Ctype != CUDA_R_16F && Ctype != CUDA_R_32F)
        return refuse(handle, CUBLAS_STATUS_NOT_SUPPORTED,
                      at + "C " + type_name(Ctype) + ": only CUDA_R_16F or CUDA_R_32F outputs are implemented");
    if (algo != CUBLAS_GEMM_DEFAULT)
        return refuse(handle, CUBLAS_STATUS_NOT_SUPPORTED,
                      at + "algo " + std::to_string(int(algo)) + " is not implemented (only CUBLAS_GEMM_DEFAULT)");
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;  // nothing to do, as in BLAS

    Gemm g;
    g.a = Operand{static_cast<const uint16_t*>(A), transa == CUBLAS_OP_T, lda, m, k};
    g.b = Operand{static_cast<const uint16_t*>(B), transb == CUBLAS_OP_T, ldb, k, n};
    g.m = m, g.n = n, g.k = k;
    g.alpha = *static_cast<const float*>(alpha);  // host pointer mode: read now, as cuBLAS does
    g.beta = *static_cast<const float*>(beta);
    g.c = C;
    g.c_fp32 = Ctype == CUDA_R_32F;
    g.ldc = ldc;
    g.own_workspace = handle->own_workspace;
    check_memory(g);  // now, so that a bad call fails where it is made
    if (folio::simt::enqueue_host_work(handle->stream, [g] { run(g); }) != cudaSuccess)
        return refuse(handle, CUBLAS_STATUS_EXECUTION_FAILED, at + "could not be enqueued (the legacy stream while another stream is captured)");
    handle->last_refusal.clear();
    return CUBLAS_STATUS_SUCCESS;
}

const char* cublasGetStatusName(cublasStatus_t status) {
    switch (status) {
        case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
        case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
        case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
        case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char* cublasGetStatusString(cublasStatus_t status) {
    switch (status) {
        case CUBLAS_STATUS_SUCCESS: return "success";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "the handle was not initialised";
        case CUBLAS_STATUS_INVALID_VALUE: return "an argument has an invalid value";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "the work could not be run on the device";
        case CUBLAS_STATUS_NOT_SUPPORTED:
            return "not implemented by the SIMT harness's host cuBLAS (tests/simt/harness/cublas_host.h lists what is; the reason is on stderr)";
        default: return cublasGetStatusName(status);
    }
}

namespace folio::simt {

CublasActivity cublas_activity() { return activity(); }

const char* cublas_last_refusal(cublasHandle_t handle) { return handle ? handle->last_refusal.c_str() : ""; }

}  // namespace folio::simt
