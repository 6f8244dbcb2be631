#include "kernels/rope_kv.h"

#include "kernels/common/device_utils.cuh"
#include "kernels/common/fp8.cuh"
#include "kernels/common/launch.cuh"

namespace folio::cuda {

namespace {

constexpr int kMaxHalfDim = 128;  // head_dim <= 256: a block holds at least one head

// Stores one K or V element into a pool: fp16, or FP8 code of x / scale.
__device__ __forceinline__ void store_kv(void* pool, int64_t i, float x, bool fp8, bool e5m2, float scale) {
    if (fp8) static_cast<uint8_t*>(pool)[i] = fp8_encode(x / scale, e5m2);
    else static_cast<__half*>(pool)[i] = __float2half_rn(x);
}

// |x| into a block-wide maximum kept as float bits (non-negative floats order as their bits).
__device__ __forceinline__ void note_max(unsigned* m, float x) {
    const float a = fabsf(x);
    if (a <= 3.402823466e38f) atomicMax(m, __float_as_uint(a));  // finite only (NaN fails the test)
}

// Threads per block; a block takes kRopeThreads / (head_dim / 2) whole heads of one token.
constexpr int kRopeThreads = 128;

// grid = (tokens, head blocks): thread (token t, head h, pair j) owns elements j and j + head_dim/2
// of head h, where heads run Q, then K, then V. Why this shape: with one block per token, a decode
// step (one token) ran as a single 128-thread block looping over every Q and K head's pairs and the
// V copy, 31.8 us per layer on an H200 (ncu, Llama-2-7B shape: 64 Q and K heads x 64 pairs, then
// 32 x 128 V elements, 64 rounds of loads and stores for 128 threads on one SM). Here each thread
// does one round, and the token's heads are spread over many blocks and SMs. Each block computes
// the token's cos/sin table as the one-block kernel did and the rotation is the same expression,
// so every stored bit is what the one-block kernel stored.
__global__ void __launch_bounds__(kRopeThreads) rope_kv_kernel(__half* qkv, const int32_t* positions, const float* inv_freq,
                                                               const int32_t* slot_mapping, KvWriteTarget kv, int num_heads,
                                                               int num_kv_heads, int head_dim, int block_size) {
    __shared__ float cos_t[kMaxHalfDim];
    __shared__ float sin_t[kMaxHalfDim];
    __shared__ unsigned block_max[2];
    const int t = int(blockIdx.x);
    const int half = head_dim / 2;
    const int heads_per_block = kRopeThreads / half;
    const int j = int(threadIdx.x) % half;
    const int h = int(blockIdx.y) * heads_per_block + int(threadIdx.x) / half;
    const int total_heads = num_heads + 2 * num_kv_heads;
    const bool active = int(threadIdx.x) < heads_per_block * half && h < total_heads;
    const bool measure = kv.amax != nullptr;
    const bool fp8 = kv.dtype != KvCacheDtype::Auto, e5m2 = kv.dtype == KvCacheDtype::Fp8E5M2;
    if (threadIdx.x < 2) block_max[threadIdx.x] = 0u;
    // The token's cos/sin table, computed by each block as the one-block kernel computed it (the
    // same loop: with sincosf in per-thread registers instead, ptxas put its slow-path argument
    // reduction in a 32-byte stack frame on sm_90).
    const float pos = float(positions[t]);
    for (int jj = int(threadIdx.x); jj < half; jj += int(blockDim.x)) {
        float sn, cs;
        sincosf(pos * inv_freq[jj], &sn, &cs);
        cos_t[jj] = cs;
        sin_t[jj] = sn;
    }
    __syncthreads();
    const float c = cos_t[j], s = sin_t[j];
    const int slot = slot_mapping[t];
    const int64_t block = slot >= 0 ? slot / block_size : 0;
    const int offset = slot >= 0 ? slot % block_size : 0;
    __half* row = qkv + size_t(t) * size_t(total_heads) * head_dim;
    __half* v = row + size_t(h) * head_dim;
    if (active && h < num_heads + num_kv_heads && !(measure && h < num_heads)) {
        // Rotation: Q heads in place, K heads straight into the cache (or only measured).
        const float x1 = __half2float(v[j]), x2 = __half2float(v[j + half]);
        const float r1 = x1 * c - x2 * s;
        const float r2 = x2 * c + x1 * s;
        if (measure) {
            if (slot >= 0) {
                note_max(&block_max[0], r1);
                note_max(&block_max[0], r2);
            }
        } else if (h < num_heads) {
            v[j] = __float2half_rn(r1);
            v[j + half] = __float2half_rn(r2);
        } else if (slot >= 0) {
            const float ks = fp8 ? *kv.k_scale : 1.0f;
            const int64_t dst = ((block * num_kv_heads + (h - num_heads)) * block_size + offset) * head_dim;
            store_kv(kv.k_pool, dst + j, r1, fp8, e5m2, ks);
            store_kv(kv.k_pool, dst + j + half, r2, fp8, e5m2, ks);
        }
    } else if (active && h >= num_heads + num_kv_heads && slot >= 0) {
        // V: copied (fp16) or encoded (FP8), elements j and j + half of its head.
        const int64_t dst = ((block * num_kv_heads + (h - num_heads - num_kv_heads)) * block_size + offset) * head_dim;
        FOLIO_UNROLL
        for (int e = 0; e < 2; ++e) {
            const int d = j + e * half;
            if (measure) note_max(&block_max[1], __half2float(v[d]));
            else if (fp8) store_kv(kv.v_pool, dst + d, __half2float(v[d]), true, e5m2, *kv.v_scale);
            else static_cast<__half*>(kv.v_pool)[dst + d] = v[d];
        }
    }
    if (!measure) return;
    __syncthreads();
    if (threadIdx.x < 2 && block_max[threadIdx.x] != 0u)
        atomicMax(reinterpret_cast<unsigned*>(kv.amax) + threadIdx.x, block_max[threadIdx.x]);
}

__global__ void __launch_bounds__(32) kv_scales_kernel(const float* amax, float* k_scale, float* v_scale) {
    if (threadIdx.x != 0) return;
    if (amax[0] > 0.0f) *k_scale = amax[0] / kKvScaleKRange;
    if (amax[1] > 0.0f) *v_scale = amax[1] / kKvScaleVRange;
}

// Whole blocks in 8-byte moves (block_bytes is a multiple of 8: head_dim is).
__global__ void __launch_bounds__(256) copy_blocks_kernel(void* const* pools, const int32_t* pairs, int64_t block_bytes) {
    unsigned char* pool = static_cast<unsigned char*>(pools[blockIdx.y]);
    const int64_t src = pairs[2 * blockIdx.x], dst = pairs[2 * blockIdx.x + 1];
    const uint2* s = reinterpret_cast<const uint2*>(pool + src * block_bytes);
    uint2* d = reinterpret_cast<uint2*>(pool + dst * block_bytes);
    for (int64_t i = threadIdx.x; i < block_bytes / 8; i += blockDim.x) d[i] = s[i];
}

}  // namespace

void rope_write_kv(__half* qkv, const int32_t* positions, const float* inv_freq, const int32_t* slot_mapping, const KvWriteTarget& kv,
                   int num_tokens, int num_heads, int num_kv_heads, int head_dim, int block_size, cudaStream_t stream) {
    if (num_tokens <= 0) return;
    if (head_dim % 2 != 0 || head_dim / 2 > kMaxHalfDim) throw Error("rope_write_kv: head_dim must be even and at most 256");
    if (is_fp8(kv.dtype) && !kv.amax && (!kv.k_scale || !kv.v_scale)) throw Error("rope_write_kv: an FP8 KV cache needs its scales");
    const int heads_per_block = kRopeThreads / (head_dim / 2);
    const int head_blocks = (num_heads + 2 * num_kv_heads + heads_per_block - 1) / heads_per_block;
    launch(rope_kv_kernel, dim3(unsigned(num_tokens), unsigned(head_blocks)), dim3(kRopeThreads), 0, stream, qkv, positions, inv_freq, slot_mapping, kv, num_heads,
           num_kv_heads, head_dim, block_size);
}

void kv_scales_from_amax(const float* amax, float* k_scale, float* v_scale, cudaStream_t stream) {
    launch(kv_scales_kernel, dim3(1), dim3(32), 0, stream, amax, k_scale, v_scale);
}

void copy_kv_blocks(void* const* pools, int num_pools, const int32_t* pairs, int num_pairs, int64_t block_bytes, cudaStream_t stream) {
    if (num_pairs <= 0) return;
    if (block_bytes % 8 != 0) throw Error("copy_kv_blocks: a block must be a multiple of 8 bytes");
    launch(copy_blocks_kernel, dim3(unsigned(num_pairs), unsigned(num_pools)), dim3(256), 0, stream, pools, pairs, block_bytes);
}

}  // namespace folio::cuda
