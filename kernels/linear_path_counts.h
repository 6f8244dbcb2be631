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

    uint64_t cublas() const { return awq_dequant_cublas + dense_cublas; }
    uint64_t hand_written() const { return awq_gemv + awq_mma + dense_gemv + dense_mma; }
    // What ran after `earlier` was read.
    LinearPathCounts since(const LinearPathCounts& earlier) const {
        return {awq_gemv - earlier.awq_gemv,         awq_mma - earlier.awq_mma,
                awq_dequant_cublas - earlier.awq_dequant_cublas, dense_cublas - earlier.dense_cublas,
                dense_gemv - earlier.dense_gemv,     dense_mma - earlier.dense_mma};
    }
};

}  // namespace folio::cuda
