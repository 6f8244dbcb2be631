#pragma once
// fp16 GEMMs through cuBLAS (in the SIMT build, the harness's host cuBLAS: tests/simt/harness/cublas_host.h).
#include <memory>

#include "kernels/common/cuda_compat.h"
#include "kernels/device_buffer.h"

namespace folio::cuda {

class CublasGemm {
public:
    static constexpr size_t kWorkspaceBytes = size_t(32) << 20;  // ours: cuBLAS allocates nothing during graph capture

    CublasGemm();
    ~CublasGemm();
    CublasGemm(const CublasGemm&) = delete;
    CublasGemm& operator=(const CublasGemm&) = delete;

    // y[m, n] = x[m, k] . W^T, fp32 accumulation; W is [n, k] (nn.Linear) or, with w_is_kn, [k, n]
    // (a dequantised AWQ matrix). y fp16 or fp32. Graph-capture safe (own workspace).
    void gemm(const __half* w, bool w_is_kn, const __half* x, int m, int k, int n, void* y, bool out_fp32, cudaStream_t stream);

    size_t workspace_bytes() const { return workspace_.bytes(); }

private:
    void* handle_ = nullptr;  // cublasHandle_t
    DeviceBuffer<unsigned char> workspace_;
};

}  // namespace folio::cuda
