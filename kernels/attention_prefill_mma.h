#pragma once
// The tensor-core prefill attention (attention_prefill_mma.cu); prefill_attention() dispatches to it
// for the head dims it supports, with query tiles of 64 rows.
#include "kernels/attention.h"

namespace folio::cuda {

bool prefill_mma_supports(int head_dim);
void prefill_attention_mma(const PrefillAttention& a, const PagedKv& kv, cudaStream_t stream);

}  // namespace folio::cuda
