#include "kernels/qkv_epilogue.h"

#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"

namespace folio::cuda {

namespace {

__global__ void __launch_bounds__(256) qkv_bias_kernel(__half* qkv, const float* bias, int num_tokens, int width) {
    for (int t = int(blockIdx.y); t < num_tokens; t += int(gridDim.y)) {  // grid.y stops at 65535
        __half* row = qkv + size_t(t) * width;
        for (int i = int(blockIdx.x * blockDim.x + threadIdx.x); i < width; i += int(gridDim.x * blockDim.x))
            row[i] = __float2half_rn(__half2float(row[i]) + bias[i]);
    }
}

constexpr int kMaxPerLane = 8;  // head_dim <= 32 * 8

// One warp per head row (q heads then k heads of one token); the row stays in registers between the
// sum of squares and the scaling.
__global__ void __launch_bounds__(128) qk_head_norm_kernel(__half* qkv, const float* q_weight, const float* k_weight,
                                                           int num_tokens, int num_heads, int num_kv_heads, int head_dim,
                                                           float eps) {
    const int warps = int(blockDim.x) / 32, lane = int(threadIdx.x) % 32;
    const int heads = num_heads + num_kv_heads;
    const int64_t rows = int64_t(num_tokens) * heads;
    const size_t stride = size_t(num_heads + 2 * num_kv_heads) * head_dim;
    for (int64_t r = int64_t(blockIdx.x) * warps + int(threadIdx.x) / 32; r < rows; r += int64_t(gridDim.x) * warps) {
        const int64_t t = r / heads;
        const int h = int(r % heads);
        __half* x = qkv + size_t(t) * stride + size_t(h) * head_dim;
        const float* w = h < num_heads ? q_weight : k_weight;
        float v[kMaxPerLane];
        float ss = 0.0f;
        FOLIO_UNROLL
        for (int j = 0; j < kMaxPerLane; ++j) {
            const int d = lane + 32 * j;
            v[j] = d < head_dim ? __half2float(x[d]) : 0.0f;
            ss += v[j] * v[j];
        }
        ss = warp_sum(ss);
        const float inv = 1.0f / sqrtf(ss / float(head_dim) + eps);
        FOLIO_UNROLL
        for (int j = 0; j < kMaxPerLane; ++j) {
            const int d = lane + 32 * j;
            if (d < head_dim) x[d] = __float2half_rn((v[j] * inv) * w[d]);
        }
    }
}

}  // namespace

void qkv_bias_add(__half* qkv, const float* bias, int num_tokens, int width, cudaStream_t stream) {
    if (num_tokens <= 0) return;
    const int blocks_x = (width + 255) / 256 < 64 ? (width + 255) / 256 : 64;
    const int blocks_y = num_tokens < 65535 ? num_tokens : 65535;
    launch(qkv_bias_kernel, dim3(unsigned(blocks_x), unsigned(blocks_y)), dim3(256), 0, stream, qkv, bias, num_tokens, width);
}

void qk_head_norm(__half* qkv, const float* q_weight, const float* k_weight, int num_tokens, int num_heads, int num_kv_heads,
                  int head_dim, float eps, cudaStream_t stream) {
    if (num_tokens <= 0) return;
    if (head_dim <= 0 || head_dim > 32 * kMaxPerLane) throw Error("qk_head_norm: head_dim must be between 1 and 256");
    const int64_t rows = int64_t(num_tokens) * (num_heads + num_kv_heads);
    const int64_t blocks = (rows + 3) / 4;
    launch(qk_head_norm_kernel, dim3(unsigned(blocks < 65535 ? blocks : 65535)), dim3(128), 0, stream, qkv, q_weight, k_weight,
           num_tokens, num_heads, num_kv_heads, head_dim, eps);
}

}  // namespace folio::cuda
