#include "kernels/embedding.h"

#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"

namespace folio::cuda {

namespace {

__global__ void __launch_bounds__(256) embedding_kernel(const __half* table, const int32_t* tokens, float* out, int dim) {
    const int t = int(blockIdx.x);
    const __half* src = table + size_t(tokens[t]) * dim;
    float* dst = out + size_t(t) * dim;
    for (int d = int(threadIdx.x); d < dim; d += int(blockDim.x)) dst[d] = __half2float(src[d]);
}

}  // namespace

void embedding_gather(const __half* table, const int32_t* tokens, float* out, int num_tokens, int dim, cudaStream_t stream) {
    if (num_tokens <= 0) return;
    launch(embedding_kernel, dim3(unsigned(num_tokens)), dim3(256), 0, stream, table, tokens, out, dim);
}

}  // namespace folio::cuda
