#include "kernels/rms_norm.h"

#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"

namespace folio::cuda {

namespace {

// The vector kernel: each thread holds up to kVecPerThread runs of 4 elements in registers.
constexpr int kVecPerThread = 4;
constexpr int kMaxNormThreads = 1024;

// Threads for a row of `dim` elements in the vector kernel: two runs of 4 per thread (so a thread
// has its loads in flight together), up to 1024 threads, rounded up to whole warps. It depends on
// dim alone, never on the number of rows, so the sum of squares of a row is added in the same order
// whatever batch the row is in (a row's output does not change with the batch).
int vec_threads(int dim) {
    const int runs = dim / 4;
    const int want = (runs + 1) / 2;
    const int threads = ((want + 31) / 32) * 32;
    return threads < kMaxNormThreads ? threads : kMaxNormThreads;
}

__device__ __forceinline__ float4 add_half4(float4 a, uint2 raw) {
    __half2 h[2];
    memcpy(h, &raw, sizeof(raw));
    const float2 lo = __half22float2(h[0]), hi = __half22float2(h[1]);
    return make_float4(a.x + lo.x, a.y + lo.y, a.z + hi.x, a.w + hi.y);
}

// One block per output row, 16-byte loads (8 for fp16) and x kept in registers between the two
// passes. Why: the scalar kernel below ran a 4096-wide decode row as one 256-thread block walking
// 16 scalar loads per thread, twice (15 us per norm on an H200, ncu, two norms per layer: about
// 1.0 ms of a 6.0 ms Llama-2-7B decode step) - a chain of memory latencies, not bandwidth. Here
// every thread issues all its loads at once (at most 4 x 16 bytes per array), one round trip per
// pass. Same arithmetic per element as the scalar kernel; the sum of squares is added in another
// (fixed) order.
__global__ void __launch_bounds__(kMaxNormThreads) rms_norm_vec_kernel(float* residual, const __half* delta, const float* weight,
                                                                       __half* out, const int32_t* row_map, int dim, float eps) {
    __shared__ float scratch[32];
    const int i = int(blockIdx.x);
    const int row = row_map ? row_map[i] : i;
    const int runs = dim / 4, stride = int(blockDim.x), tid = int(threadIdx.x);
    float4* res = reinterpret_cast<float4*>(residual + size_t(row) * dim);
    const uint2* dl = delta ? reinterpret_cast<const uint2*>(delta + size_t(row) * dim) : nullptr;
    float4 x[kVecPerThread] = {};
    uint2 d[kVecPerThread] = {};
    FOLIO_UNROLL
    for (int v = 0; v < kVecPerThread; ++v)
        if (tid + v * stride < runs) x[v] = res[tid + v * stride];
    if (dl)
        FOLIO_UNROLL
        for (int v = 0; v < kVecPerThread; ++v)
            if (tid + v * stride < runs) d[v] = dl[tid + v * stride];
    float ss = 0.0f;
    FOLIO_UNROLL
    for (int v = 0; v < kVecPerThread; ++v)
        if (tid + v * stride < runs) {
            if (dl) x[v] = add_half4(x[v], d[v]);
            ss += x[v].x * x[v].x;
            ss += x[v].y * x[v].y;
            ss += x[v].z * x[v].z;
            ss += x[v].w * x[v].w;
        }
    ss = block_sum(ss, scratch);
    const float inv = 1.0f / sqrtf(ss / float(dim) + eps);
    const bool write_back = dl != nullptr && row_map == nullptr;
    const float4* w4 = reinterpret_cast<const float4*>(weight);
    uint2* o = reinterpret_cast<uint2*>(out + size_t(i) * dim);
    FOLIO_UNROLL
    for (int v = 0; v < kVecPerThread; ++v) {
        const int r = tid + v * stride;
        if (r >= runs) continue;
        if (write_back) res[r] = x[v];
        const float4 w = w4[r];
        __half2 h[2] = {__floats2half2_rn((x[v].x * inv) * w.x, (x[v].y * inv) * w.y),
                        __floats2half2_rn((x[v].z * inv) * w.z, (x[v].w * inv) * w.w)};
        uint2 raw;
        memcpy(&raw, h, sizeof(raw));
        o[r] = raw;
    }
}

// Any dim and alignment: one block per output row; x is staged in shared memory between the two passes.
__global__ void __launch_bounds__(256) rms_norm_kernel(float* residual, const __half* delta, const float* weight, __half* out,
                                                       const int32_t* row_map, int dim, float eps) {
    __shared__ float scratch[32];
    float* x = dynamic_smem<float>();
    const int i = int(blockIdx.x);
    const int row = row_map ? row_map[i] : i;
    float* res = residual + size_t(row) * dim;
    const __half* dl = delta ? delta + size_t(row) * dim : nullptr;
    float ss = 0.0f;
    for (int d = int(threadIdx.x); d < dim; d += int(blockDim.x)) {
        float v = res[d];
        if (dl) v += __half2float(dl[d]);
        x[d] = v;
        ss += v * v;
    }
    ss = block_sum(ss, scratch);
    const float inv = 1.0f / sqrtf(ss / float(dim) + eps);
    const bool write_back = dl != nullptr && row_map == nullptr;
    __half* o = out + size_t(i) * dim;
    for (int d = int(threadIdx.x); d < dim; d += int(blockDim.x)) {
        const float v = x[d];
        if (write_back) res[d] = v;
        o[d] = __float2half_rn((v * inv) * weight[d]);
    }
}

bool aligned(const void* p, uintptr_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

}  // namespace

void rms_norm(float* residual, const __half* delta, const float* weight, __half* out, const int32_t* row_map, int num_out,
              int dim, float eps, cudaStream_t stream) {
    if (num_out <= 0) return;
    // The vector kernel needs whole 4-element runs, 16-byte fp32 rows (8-byte fp16 rows) and a row
    // that fits its registers; the choice depends on dim and the buffers only, not on num_out.
    const bool vec = dim % 4 == 0 && dim / 4 <= kMaxNormThreads * kVecPerThread && aligned(residual, 16) && aligned(weight, 16) &&
                     aligned(out, 8) && (!delta || aligned(delta, 8));
    if (vec) {
        launch(rms_norm_vec_kernel, dim3(unsigned(num_out)), dim3(unsigned(vec_threads(dim))), 0, stream, residual, delta, weight,
               out, row_map, dim, eps);
        return;
    }
    const int threads = dim >= 256 ? 256 : ((dim + 31) / 32) * 32;
    launch(rms_norm_kernel, dim3(unsigned(num_out)), dim3(unsigned(threads)), size_t(dim) * sizeof(float), stream, residual,
           delta, weight, out, row_map, dim, eps);
}

}  // namespace folio::cuda
