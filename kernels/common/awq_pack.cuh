#pragma once
#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

// AutoAWQ packs eight 4-bit values per int32 with nibble i holding column {0,2,4,6,1,3,5,7}[i] of its
// group of eight (engine/model/awq.h); as a function so device code can use it in unrolled loops.
__host__ __device__ constexpr int awq_nibble_column(int nibble) { return (nibble % 4) * 2 + nibble / 4; }

}  // namespace folio::cuda
