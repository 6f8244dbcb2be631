#pragma once
// Matrix products y[m, n] = x[m, k] . W^T for the decoder's linears, fp16 inputs, fp32 accumulation:
//  - awq_gemv: AWQ int4 weights straight from the AutoAWQ layout for decode batches (m <= 8): every
//    weight byte is read once per call whatever m is, dequantised as (q - z) * s in fp32;
//  - gemm_mma: a tensor-core GEMM (mma.sync m16n8k16) for prefill and larger batches, with the B
//    tile either dequantised from AWQ into shared memory or loaded from fp16 weights [n, k];
//  - dense_gemv: fp16 weights for m <= 8 (cuBLAS does this on the device by default);
//  - awq_dequantize: the whole AWQ matrix to fp16 [k, n], for dequantise-then-cuBLAS at large m.
//  - FP8 weights (one code per byte, [n, k], a scale per output row): fp8_gemv for m <= 8 and the
//    gemm_mma B tile decoded to fp16 (weight-only, W8A16, any sm_80+); on sm_89+ with E4M3 weights,
//    quantize_rows_fp8 + gemm_fp8_mma (W8A8: mma.sync m16n8k32 e4m3, fp32 accumulation).
// Split-K: several thread blocks share one output tile; the last to finish sums the partials in a
// fixed order (deterministic) and resets its counter, so the call is graph-replay safe.
#include <cstdint>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

struct AwqWeightsView {
    const int32_t* qweight = nullptr;  // [k, n/8]
    const int32_t* qzeros = nullptr;   // [k/g, n/8]
    const __half* scales = nullptr;    // [k/g, n]
    int k = 0, n = 0, group_size = 128;
};

struct DenseWeightsView {
    const __half* w = nullptr;  // [n, k], row-major (nn.Linear's layout)
    int k = 0, n = 0;
};

// FP8 weights as nn.Linear stores them, [n, k] row-major, one code per byte: w[o][i] = code * row_scale[o]
// (engine/core/fp8.h). Kernels multiply by codes as fp16 "scaled codes" (common/fp8.cuh) and apply
// row_scale * fp8_f16_scale once per output.
struct Fp8WeightsView {
    const uint8_t* w = nullptr;          // [n, k]
    const float* row_scale = nullptr;    // [n]
    int k = 0, n = 0;
    bool e5m2 = false;                   // E5M2 codes (else E4M3)
};

// Scratch for split-K: partial sums and per-tile counters (zeroed once at allocation).
struct SplitKWorkspace {
    float* partials = nullptr;
    size_t partial_floats = 0;
    int* counters = nullptr;
    int num_counters = 0;
};

inline constexpr int kGemvMaxRows = 8;

// y: [m, n] fp16 or fp32 (out_fp32). splits = 0 picks a split count for `sm_count` multiprocessors.
void awq_gemv(const AwqWeightsView& w, const __half* x, int m, void* y, bool out_fp32, int splits, int sm_count,
              const SplitKWorkspace& ws, cudaStream_t stream);
void gemm_mma_awq(const AwqWeightsView& w, const __half* x, int m, void* y, bool out_fp32, int splits, int sm_count,
                  const SplitKWorkspace& ws, cudaStream_t stream);
void gemm_mma_dense(const DenseWeightsView& w, const __half* x, int m, void* y, bool out_fp32, int splits, int sm_count,
                    const SplitKWorkspace& ws, cudaStream_t stream);

void gemm_mma_fp8w(const Fp8WeightsView& w, const __half* x, int m, void* y, bool out_fp32, int splits, int sm_count,
                   const SplitKWorkspace& ws, cudaStream_t stream);

// FP8 weights, m <= 8: every weight byte read once per call, activations kept in fp16 (W8A16).
void fp8_gemv(const Fp8WeightsView& w, const __half* x, int m, void* y, bool out_fp32, cudaStream_t stream);

// W8A8 on sm_89+ (E4M3 weights, k a multiple of 16): activations [m, k] fp16 -> E4M3 codes with one
// scale per row: static_scale when > 0 (a checkpoint's input_scale), else dynamic per token,
// max(amax / 448, 1 / (448 * 512)) as vLLM floors it; code = fp8(x / scale).
void quantize_rows_fp8(const __half* x, int m, int k, float static_scale, uint8_t* codes, float* scales, cudaStream_t stream);
// y[m, n] = (sum over k of qx * qw) * x_scale[row] * w.row_scale[col], mma.sync m16n8k32 e4m3.
void gemm_fp8_mma(const Fp8WeightsView& w, const uint8_t* x_codes, const float* x_scales, int m, void* y, bool out_fp32, int splits,
                  int sm_count, const SplitKWorkspace& ws, cudaStream_t stream);
int gemm_fp8_mma_splits(int m, int k, int n, int sm_count);

// fp16 weights, m <= 8: one pass over the weights (the SIMT build's stand-in for cuBLAS at small m).
void dense_gemv(const DenseWeightsView& w, const __half* x, int m, void* y, bool out_fp32, cudaStream_t stream);

// The splits the calls above would use, and the workspace they need at the largest m.
int awq_gemv_splits(int k, int n, int group_size, int sm_count);
int gemm_mma_splits(int m, int k, int n, int sm_count);
size_t split_k_partial_floats(int m, int n, int splits);
int split_k_counters(int m, int n);

// out[k, n] = (q - z) * s as fp16 (row-major, ready for a column-major GEMM library as W^T).
void awq_dequantize(const AwqWeightsView& w, __half* out, cudaStream_t stream);

}  // namespace folio::cuda
