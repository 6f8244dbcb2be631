#pragma once
// Runs one decoder linear on the device, choosing the kernel by shape:
//   FP8,   m <= 8                        -> fp8_gemv (weight-only, each weight byte read once)
//   FP8,   E4M3, k % 16 == 0, fp8_w8a8   -> quantize_rows_fp8 + gemm_fp8_mma (W8A8 on sm_89+ tensor cores)
//   FP8,   otherwise                     -> gemm_mma_fp8w (weight-only, any sm_80+)
//   AWQ,   m <= 8                        -> awq_gemv (each weight byte read once)
//   AWQ,   m < awq_dequant_min_rows      -> gemm_mma_awq (tensor cores, dequantised in shared memory)
//   AWQ,   m >= awq_dequant_min_rows     -> awq_dequantize + cuBLAS
//   dense                                -> cuBLAS (use_cublas), else dense_gemv (m <= 8) or gemm_mma_dense
// The SIMT build runs the same policy: its cuBLAS is the harness's host implementation.
// It owns the split-K and dequantisation workspaces, sized once for the largest step.
#include <memory>

#include "kernels/common/cuda_compat.h"
#include "kernels/device_buffer.h"
#include "kernels/device_model.h"
#include "kernels/linear_path_counts.h"

namespace folio::cuda {

class CublasGemm;

struct LinearPolicy {
    int gemv_max_rows = kGemvMaxRows;
    // At or above this many rows an AWQ product dequantises to fp16 and calls cuBLAS (0: never).
    int awq_dequant_min_rows = 512;
    bool use_cublas = true;  // fp16 weights through cuBLAS (else dense_gemv / gemm_mma_dense)
    // FP8 weights on FP8 tensor cores (the backend sets it on sm_89+; FOLIO_FP8_W8A8=0 keeps every FP8
    // product weight-only): activations quantized per token, or with the checkpoint's static scale.
    bool fp8_w8a8 = false;

    // The defaults, overridden by FOLIO_AWQ_DEQUANT_MIN_ROWS (a count, 0: never), FOLIO_CUDA_CUBLAS
    // (0 or 1) and FOLIO_FP8_W8A8 (0: FP8 weight-only everywhere) for benchmarks and tests. Throws folio::Error naming the variable on a bad value.
    static LinearPolicy from_environment();
};

class LinearRunner {
public:
    LinearRunner(const DeviceModel& model, int max_rows, int sm_count, LinearPolicy policy);
    ~LinearRunner();
    LinearRunner(const LinearRunner&) = delete;
    LinearRunner& operator=(const LinearRunner&) = delete;

    // y[m, w.out] = x[m, w.in] . W^T; y fp16 or fp32.
    void run(const DeviceLinear& w, const __half* x, int m, void* y, bool out_fp32, cudaStream_t stream);

    size_t workspace_bytes() const;
    // The workspaces whose size does not depend on the device (AWQ dequantisation, cuBLAS); the
    // split-K scratch (a few MiB) comes on top.
    static size_t fixed_workspace_bytes(size_t largest_awq_elems, int max_rows, const LinearPolicy& policy, int largest_fp8_in = 0);
    const LinearPolicy& policy() const { return policy_; }
    const LinearPathCounts& counts() const { return counts_; }

private:
    int sm_count_;
    LinearPolicy policy_;
    DeviceBuffer<float> partials_;
    DeviceBuffer<int> counters_;
    DeviceBuffer<__half> dequantized_;
    DeviceBuffer<uint8_t> act_codes_;  // W8A8: [max_rows, largest FP8 input]
    DeviceBuffer<float> act_scales_;   // W8A8: [max_rows]
    std::unique_ptr<CublasGemm> cublas_;
    LinearPathCounts counts_;
};

}  // namespace folio::cuda
