#pragma once
#include <cstdint>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

// out[t, :] = float(table[tokens[t], :]): the residual stream starts as the token embeddings.
// table: [vocab, dim] fp16; out: [num_tokens, dim] fp32. Token ids are validated on the host.
void embedding_gather(const __half* table, const int32_t* tokens, float* out, int num_tokens, int dim, cudaStream_t stream);

}  // namespace folio::cuda
