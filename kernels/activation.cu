#include "kernels/activation.h"

#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"

namespace folio::cuda {

namespace {

__global__ void __launch_bounds__(256) silu_mul_kernel(const __half* gate_up, __half* out, int num_tokens, int inter) {
    for (int t = int(blockIdx.y); t < num_tokens; t += int(gridDim.y)) {  // grid.y stops at 65535
        const __half* g = gate_up + size_t(t) * 2 * inter;
        const __half* u = g + inter;
        __half* o = out + size_t(t) * inter;
        for (int i = int(blockIdx.x * blockDim.x + threadIdx.x); i < inter; i += int(gridDim.x * blockDim.x)) {
            const float gv = __half2float(g[i]);
            o[i] = __float2half_rn((gv / (1.0f + expf(-gv))) * __half2float(u[i]));
        }
    }
}

}  // namespace

void silu_mul(const __half* gate_up, __half* out, int num_tokens, int inter, cudaStream_t stream) {
    if (num_tokens <= 0) return;
    const int blocks_x = (inter + 255) / 256 < 64 ? (inter + 255) / 256 : 64;
    const int blocks_y = num_tokens < 65535 ? num_tokens : 65535;
    launch(silu_mul_kernel, dim3(unsigned(blocks_x), unsigned(blocks_y)), dim3(256), 0, stream, gate_up, out, num_tokens, inter);
}

}  // namespace folio::cuda
