#pragma once
#include <cstdint>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

// out[t, i] = silu(gate) * up with gate = gate_up[t, i], up = gate_up[t, inter + i] (the fused
// gate/up projection's output [num_tokens, 2 * inter]); silu(g) = g / (1 + exp(-g)), in fp32.
void silu_mul(const __half* gate_up, __half* out, int num_tokens, int inter, cudaStream_t stream);

}  // namespace folio::cuda
