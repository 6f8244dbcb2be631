#pragma once
// How many products each of LinearRunner's paths has enqueued, so that tests (in the SIMT harness
// and on a GPU) can assert which path a policy takes. A CUDA-graph replay runs captured products
// again without counting them. No CUDA types: engine-side code may include it.
#include <cstdint>

namespace folio::cuda {

struct LinearPathCounts {
    uint64_t awq_gemv = 0;            // AWQ, m <= gemv_max_rows
    uint64_t awq_mma = 0;             // AWQ, gemm_mma_awq (tensor cores, dequantised in shared memory)
    uint64_t awq_dequant_cublas = 0;  // AWQ, m >= awq_dequant_min_rows: awq_dequantize + cuBLAS
    uint64_t dense_cublas = 0;        // fp16 weights through cuBLAS
    uint64_t dense_gemv = 0;          // fp16 weights, m <= gemv_max_rows, without cuBLAS
    uint64_t dense_mma = 0;           // fp16 weights, gemm_mma_dense, without cuBLAS
    uint64_t fp8_gemv = 0;            // FP8, m <= gemv_max_rows (weight-only)
    uint64_t fp8_w8a8_mma = 0;        // FP8, quantize_rows_fp8 + gemm_fp8_mma (sm_89+ FP8 tensor cores)
    uint64_t fp8_w8a16_mma = 0;       // FP8, gemm_mma_fp8w (weight-only, decoded in shared memory)

    uint64_t cublas() const { return awq_dequant_cublas + dense_cublas; }
    uint64_t hand_written() const { return awq_gemv + awq_mma + dense_gemv + dense_mma + fp8_gemv + fp8_w8a8_mma + fp8_w8a16_mma; }
    // What ran after `earlier` was read.
    LinearPathCounts since(const LinearPathCounts& earlier) const {
        return {awq_gemv - earlier.awq_gemv,         awq_mma - earlier.awq_mma,
                awq_dequant_cublas - earlier.awq_dequant_cublas, dense_cublas - earlier.dense_cublas,
                dense_gemv - earlier.dense_gemv,     dense_mma - earlier.dense_mma,
                fp8_gemv - earlier.fp8_gemv,         fp8_w8a8_mma - earlier.fp8_w8a8_mma,
                fp8_w8a16_mma - earlier.fp8_w8a16_mma};
    }
};

}  // namespace folio::cuda
