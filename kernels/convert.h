#pragma once
#include <cstdint>

#include "kernels/common/cuda_compat.h"
#include "engine/core/dtype.h"

namespace folio::cuda {

// dst[i] = fp16(src[i]) for a checkpoint tensor of dtype F32, F16 or BF16 (round to nearest even).
void convert_to_half(const void* src, DType dtype, __half* dst, int64_t n, cudaStream_t stream);

// dst[i] = fp32(src[i]) for F32, F16 or BF16 (norm weights are kept in fp32).
void convert_to_float(const void* src, DType dtype, float* dst, int64_t n, cudaStream_t stream);

}  // namespace folio::cuda
