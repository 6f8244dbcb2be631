#include "kernels/rope_kv.h"

#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"

namespace folio::cuda {

namespace {

constexpr int kMaxHalfDim = 128;  // head_dim <= 256

// One block per token: the cos/sin table of its position is computed once, then every head's pairs.
__global__ void __launch_bounds__(128) rope_kv_kernel(__half* qkv, const int32_t* positions, const float* inv_freq,
                                                      const int32_t* slot_mapping, __half* k_pool, __half* v_pool,
                                                      int num_heads, int num_kv_heads, int head_dim, int block_size) {
    __shared__ float cos_t[kMaxHalfDim];
    __shared__ float sin_t[kMaxHalfDim];
    const int t = int(blockIdx.x);
    const int half = head_dim / 2;
    const float pos = float(positions[t]);
    for (int j = int(threadIdx.x); j < half; j += int(blockDim.x)) {
        float s, c;
        sincosf(pos * inv_freq[j], &s, &c);
        cos_t[j] = c;
        sin_t[j] = s;
    }
    __syncthreads();
    __half* row = qkv + size_t(t) * size_t(num_heads + 2 * num_kv_heads) * head_dim;
    const int slot = slot_mapping[t];
    const int64_t block = slot >= 0 ? slot / block_size : 0;
    const int offset = slot >= 0 ? slot % block_size : 0;
    // Rotations: Q heads in place, K heads straight into the cache.
    const int rot_tasks = (num_heads + num_kv_heads) * half;
    for (int task = int(threadIdx.x); task < rot_tasks; task += int(blockDim.x)) {
        const int h = task / half, j = task % half;
        __half* v = row + size_t(h) * head_dim;
        const float x1 = __half2float(v[j]), x2 = __half2float(v[j + half]);
        const float r1 = x1 * cos_t[j] - x2 * sin_t[j];
        const float r2 = x2 * cos_t[j] + x1 * sin_t[j];
        if (h < num_heads) {
            v[j] = __float2half_rn(r1);
            v[j + half] = __float2half_rn(r2);
        } else if (slot >= 0) {
            const int kh = h - num_heads;
            __half* dst = k_pool + ((block * num_kv_heads + kh) * block_size + offset) * head_dim;
            dst[j] = __float2half_rn(r1);
            dst[j + half] = __float2half_rn(r2);
        }
    }
    if (slot < 0) return;
    const __half* vsrc = row + size_t(num_heads + num_kv_heads) * head_dim;
    for (int i = int(threadIdx.x); i < num_kv_heads * head_dim; i += int(blockDim.x)) {
        const int kh = i / head_dim, d = i % head_dim;
        v_pool[((block * num_kv_heads + kh) * block_size + offset) * head_dim + d] = vsrc[i];
    }
}

__global__ void __launch_bounds__(256) copy_blocks_kernel(__half* const* pools, const int32_t* pairs, int64_t block_elems) {
    __half* pool = pools[blockIdx.y];
    const int64_t src = pairs[2 * blockIdx.x], dst = pairs[2 * blockIdx.x + 1];
    // block_elems is a multiple of 8 (head_dim is): 16-byte moves.
    const uint4* s = reinterpret_cast<const uint4*>(pool + src * block_elems);
    uint4* d = reinterpret_cast<uint4*>(pool + dst * block_elems);
    for (int64_t i = threadIdx.x; i < block_elems / 8; i += blockDim.x) d[i] = s[i];
}

}  // namespace

void rope_write_kv(__half* qkv, const int32_t* positions, const float* inv_freq, const int32_t* slot_mapping,
                   __half* k_pool, __half* v_pool, int num_tokens, int num_heads, int num_kv_heads, int head_dim,
                   int block_size, cudaStream_t stream) {
    if (num_tokens <= 0) return;
    if (head_dim % 2 != 0 || head_dim / 2 > kMaxHalfDim) throw Error("rope_write_kv: head_dim must be even and at most 256");
    launch(rope_kv_kernel, dim3(unsigned(num_tokens)), dim3(128), 0, stream, qkv, positions, inv_freq, slot_mapping, k_pool,
           v_pool, num_heads, num_kv_heads, head_dim, block_size);
}

void copy_kv_blocks(__half* const* pools, int num_pools, const int32_t* pairs, int num_pairs, int64_t block_elems,
                    cudaStream_t stream) {
    if (num_pairs <= 0) return;
    if (block_elems % 8 != 0) throw Error("copy_kv_blocks: block size in elements must be a multiple of 8");
    launch(copy_blocks_kernel, dim3(unsigned(num_pairs), unsigned(num_pools)), dim3(256), 0, stream, pools, pairs, block_elems);
}

}  // namespace folio::cuda
