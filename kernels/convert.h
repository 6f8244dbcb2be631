#pragma once
#include <cstdint>

#include "kernels/common/cuda_compat.h"
#include "engine/core/dtype.h"

namespace folio::cuda {

// What a conversion to fp16 could not represent: finite inputs beyond fp16's range (|x| >= 65520
// rounds to infinity; bf16 and fp32 checkpoints can hold such values) and the largest finite |x|
// seen, as float bits. Device-side; zero it before a conversion that reports into it.
struct HalfOverflow {
    unsigned int count = 0;
    unsigned int max_abs_bits = 0;
};

// dst[i] = fp16(src[i]) for a checkpoint tensor of dtype F32, F16 or BF16 (round to nearest even);
// when `overflow` is given, values that became infinities are counted there.
void convert_to_half(const void* src, DType dtype, __half* dst, int64_t n, cudaStream_t stream,
                     HalfOverflow* overflow = nullptr);

// dst[i] = fp32(src[i]) for F32, F16 or BF16 (norm weights are kept in fp32).
void convert_to_float(const void* src, DType dtype, float* dst, int64_t n, cudaStream_t stream);

}  // namespace folio::cuda
