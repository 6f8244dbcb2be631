#include "kernels/cublas_gemm.h"

#include <string>

#include "kernels/common/cublas_compat.h"

namespace folio::cuda {

namespace {

void check_cublas(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw Error(std::string("cuBLAS error in ") + what + ": " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

}  // namespace

CublasGemm::CublasGemm() : workspace_(kWorkspaceBytes, "cuBLAS workspace") {
    cublasHandle_t h = nullptr;
    check_cublas(cublasCreate(&h), "cublasCreate");
    handle_ = h;
}

CublasGemm::~CublasGemm() {
    if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

void CublasGemm::gemm(const __half* w, bool w_is_kn, const __half* x, int m, int k, int n, void* y, bool out_fp32,
                      cudaStream_t stream) {
    if (m <= 0) return;
    auto h = static_cast<cublasHandle_t>(handle_);
    check_cublas(cublasSetStream(h, stream), "cublasSetStream");
    // A workspace of our own, so that cuBLAS allocates nothing during graph capture. Set after every
    // cublasSetStream, which puts the handle back on the library's default pool.
    check_cublas(cublasSetWorkspace(h, workspace_.get(), workspace_.bytes()), "cublasSetWorkspace");
    const float alpha = 1.0f, beta = 0.0f;
    // Column-major view: Y^T [n, m] = W [n, k] . X^T [k, m]. Row-major W [n, k] is W^T column-major
    // (transpose it); row-major [k, n] is already W column-major.
    check_cublas(cublasGemmEx(h, w_is_kn ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, w, CUDA_R_16F,
                              w_is_kn ? n : k, x, CUDA_R_16F, k, &beta, y, out_fp32 ? CUDA_R_32F : CUDA_R_16F, n,
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
}

}  // namespace folio::cuda
