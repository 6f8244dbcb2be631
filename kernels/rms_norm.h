#pragma once
#include <cstdint>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

// RMSNorm fused with the residual add, as the decoder layers use it:
//   x = residual[r] (+ delta[r] when delta != nullptr);  out[i] = x / sqrt(mean(x^2) + eps) * weight
// residual: [rows, dim] fp32 (the residual stream); delta: [rows, dim] fp16 (the sublayer output);
// out: [num_out, dim] fp16. Without row_map, output row i is residual row i and, when delta is
// given, residual[i] is updated to x. With row_map (the final norm on the rows that need logits),
// output row i reads residual row row_map[i] and the residual is left alone.
void rms_norm(float* residual, const __half* delta, const float* weight, __half* out, const int32_t* row_map, int num_out,
              int dim, float eps, cudaStream_t stream);

}  // namespace folio::cuda
