// Device sampling: one block of 1024 threads per logits row. The candidate order of the CPU sampler
// (scaled logit descending, then id ascending) is encoded in a 64-bit key, smaller = better:
//   key = (~ascending_bits(s) << 32) | id
// and every cut-off (top-k count, top-p mass, the draw) is a radix descent over that key, eight bits
// a level, with counts or masses per bucket. Masses are exp(s - max) in 64-bit fixed point, so sums
// are exact and independent of thread timing: the same seed gives the same token on every run.
#include "engine/sampling/sampling_random.h"
#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/sampling.h"

namespace folio::cuda {

namespace {

constexpr int kThreads = 1024;
constexpr uint64_t kNone = ~uint64_t(0);

__device__ __forceinline__ uint64_t order_key(float s, int id) {
    const uint32_t u = __float_as_uint(s);
    const uint32_t asc = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return (uint64_t(~asc) << 32) | uint32_t(id);
}

__device__ __forceinline__ float key_logit(uint64_t key) {
    const uint32_t asc = ~uint32_t(key >> 32);
    return __uint_as_float((asc & 0x80000000u) ? (asc & 0x7fffffffu) : ~asc);
}

// The row being sampled and the filters found so far. An element is in the current set when its
// scaled logit is usable (not NaN, not -inf), key <= limit, and (when min_w > 0) weight >= min_w.
struct Row {
    const float* s;
    int vocab;
    float max_s;     // the best scaled logit (+inf possible)
    double scale;    // fixed-point units per unit of weight
    uint64_t limit;  // keys above are out
    float min_w;     // min-p (0: off)
};

__device__ __forceinline__ float weight(const Row& r, float s) {
    if (r.max_s == INFINITY) return s == INFINITY ? 1.0f : 0.0f;
    return expf(s - r.max_s);
}

__device__ __forceinline__ bool member(const Row& r, int i, uint64_t& key, uint64_t& mass) {
    const float s = r.s[i];
    if (!(s > -INFINITY)) return false;  // -inf and NaN are never candidates
    key = order_key(s, i);
    if (key > r.limit) return false;
    const float w = weight(r, s);
    if (!(w > 0.0f) || w < r.min_w) return false;
    mass = uint64_t(double(w) * r.scale);
    return true;
}

struct Shared {
    unsigned long long bucket_mass[256];
    unsigned int bucket_count[256];
    unsigned long long reduce[32];
    unsigned long long prefix;
    unsigned long long before;
    int digit;
};

__device__ __forceinline__ unsigned long long warp_min_u64(unsigned long long v) {
    FOLIO_UNROLL
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long t = __shfl_xor_sync(kFullMask, v, o);
        v = t < v ? t : v;
    }
    return v;
}

__device__ __forceinline__ unsigned long long warp_sum_u64(unsigned long long v) {
    FOLIO_UNROLL
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
    return v;
}

// Block-wide min or sum of one value per thread; every thread gets the result.
__device__ unsigned long long block_reduce_u64(unsigned long long v, bool is_min, Shared& sh) {
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    v = is_min ? warp_min_u64(v) : warp_sum_u64(v);
    __syncthreads();
    if (lane == 0) sh.reduce[warp] = v;
    __syncthreads();
    unsigned long long t = lane < int(blockDim.x) / 32 ? sh.reduce[lane] : (is_min ? kNone : 0ull);
    return is_min ? warp_min_u64(t) : warp_sum_u64(t);
}

// Smallest key k of the current set such that measure(keys <= k) reaches `target` (>= target, or
// > target when `strict`); measure is 1 per element (by_count) or its fixed-point mass. Returns kNone
// when the whole set does not reach the target.
__device__ uint64_t descend(const Row& r, bool by_count, double target, bool strict, Shared& sh) {
    // Eight-bit digits of the key that can differ: the 32 logit bits, then the id's low 24 bits.
    const int shifts[7] = {56, 48, 40, 32, 16, 8, 0};
    unsigned long long prefix = 0, before = 0;
    for (int level = 0; level < 7; ++level) {
        const int shift = shifts[level];
        const int prev_shift = level == 0 ? 64 : shifts[level - 1];
        for (int d = int(threadIdx.x); d < 256; d += int(blockDim.x)) {
            sh.bucket_mass[d] = 0;
            sh.bucket_count[d] = 0;
        }
        __syncthreads();
        for (int i = int(threadIdx.x); i < r.vocab; i += int(blockDim.x)) {
            uint64_t key, mass;
            if (!member(r, i, key, mass)) continue;
            if (prev_shift < 64 && (key >> prev_shift) != (prefix >> prev_shift)) continue;
            const int d = int((key >> shift) & 255u);
            if (by_count) atomicAdd(&sh.bucket_count[d], 1u);
            else atomicAdd(&sh.bucket_mass[d], (unsigned long long)mass);
        }
        __syncthreads();
        if (threadIdx.x < 32) {
            // Lane l owns digits 8l..8l+7: a warp scan finds the bucket where the measure crosses.
            const int lane = int(threadIdx.x);
            unsigned long long mine = 0;
            for (int j = 0; j < 8; ++j) mine += by_count ? sh.bucket_count[8 * lane + j] : sh.bucket_mass[8 * lane + j];
            unsigned long long incl = mine;
            FOLIO_UNROLL
            for (int o = 1; o < 32; o <<= 1) {
                const unsigned long long t = __shfl_up_sync(kFullMask, incl, o);
                if (lane >= o) incl += t;
            }
            auto reaches = [&](unsigned long long m) {
                const double v = double(before + m);
                return strict ? v > target : v >= target;
            };
            const unsigned crossing = __ballot_sync(kFullMask, reaches(incl));
            // Exactly one lane writes the outcome (lanes of a warp are not ordered without a sync).
            if (crossing == 0 && lane == 0) sh.digit = -1;
            if (crossing != 0 && lane == __ffs(int(crossing)) - 1) {
                unsigned long long run = incl - mine;
                int digit = 8 * lane + 7;
                for (int j = 0; j < 8; ++j) {
                    const unsigned long long m = by_count ? sh.bucket_count[8 * lane + j] : sh.bucket_mass[8 * lane + j];
                    if (reaches(run + m)) {
                        digit = 8 * lane + j;
                        break;
                    }
                    run += m;
                }
                sh.digit = digit;
                sh.before = before + run;
            }
        }
        __syncthreads();
        const int digit = sh.digit;
        if (digit < 0) return kNone;  // uniform: every thread read the same value
        prefix |= (unsigned long long)digit << shift;
        before = sh.before;
        __syncthreads();
    }
    return prefix;
}

// Largest key of the current set (its last element).
__device__ uint64_t last_key(const Row& r, Shared& sh) {
    unsigned long long best = 0;  // max via min of complements
    unsigned long long v = kNone;
    for (int i = int(threadIdx.x); i < r.vocab; i += int(blockDim.x)) {
        uint64_t key, mass;
        if (member(r, i, key, mass)) v = (~key) < v ? ~key : v;
    }
    best = block_reduce_u64(v, true, sh);
    return best == kNone ? kNone : ~best;
}

__device__ unsigned long long total_mass(const Row& r, Shared& sh) {
    unsigned long long v = 0;
    for (int i = int(threadIdx.x); i < r.vocab; i += int(blockDim.x)) {
        uint64_t key, mass;
        if (member(r, i, key, mass)) v += mass;
    }
    return block_reduce_u64(v, false, sh);
}

__global__ void __launch_bounds__(kThreads) sample_kernel(float* logits, int vocab, const DeviceSamplingParams* params,
                                                          int32_t* out) {
    __shared__ Shared sh;
    const int row = int(blockIdx.x);
    const DeviceSamplingParams p = params[row];
    float* l = logits + size_t(row) * vocab;

    // The best element (greedy's answer; for sampling it gives max s): the smallest key.
    const bool greedy = p.temperature < 1e-5f;
    unsigned long long best = kNone;
    for (int i = int(threadIdx.x); i < vocab; i += int(blockDim.x)) {
        float s = l[i];
        if (!greedy) {
            s = s / p.temperature;
            l[i] = s;
        }
        if (s > -INFINITY) {
            const unsigned long long k = order_key(s, i);
            best = k < best ? k : best;
        }
    }
    best = block_reduce_u64(best, true, sh);
    if (best == kNone) {  // nothing usable
        if (threadIdx.x == 0) out[row] = -1;
        return;
    }
    if (greedy) {
        if (threadIdx.x == 0) out[row] = int32_t(uint32_t(best));
        return;
    }
    __syncthreads();  // the scaled logits are in place

    Row r;
    r.s = l;
    r.vocab = vocab;
    r.max_s = key_logit(best);
    int bits = 1;
    while ((1 << bits) <= vocab) ++bits;
    r.scale = ldexp(1.0, 62 - bits);  // vocab * scale < 2^62: sums never overflow
    r.limit = kNone;
    r.min_w = 0.0f;

    // top-k: the k-th element in order is the last one kept.
    if (p.top_k > 0 && p.top_k < vocab) {
        const uint64_t k = descend(r, true, double(p.top_k), false, sh);
        if (k != kNone) r.limit = k;
    }
    // top-p over what top-k kept.
    if (p.top_p < 1.0f) {
        if (p.top_p > 0.0f) {
            const double z = double(total_mass(r, sh));
            const uint64_t k = descend(r, false, double(p.top_p) * z, false, sh);
            if (k != kNone) r.limit = k;  // rounding left the mass short of the target: keep all
        } else {
            r.limit = best;
        }
    }
    // min-p: w >= min_p (the best has w = 1 and always stays; above 1 only the best is left).
    if (p.min_p > 1.0f) r.limit = best;
    else if (p.min_p > 0.0f) r.min_w = p.min_p;

    const double z = double(total_mass(r, sh));
    const double u = counter_uniform(p.seed, p.step);
    uint64_t pick = descend(r, false, u * z, true, sh);
    if (pick == kNone) pick = last_key(r, sh);  // the sum fell a hair short of the target
    if (threadIdx.x == 0) out[row] = int32_t(uint32_t(pick));
}

__global__ void __launch_bounds__(256) penalty_kernel(float* logits, int vocab, const DeviceSamplingParams* params,
                                                      const int32_t* ids, const int32_t* counts) {
    const int row = int(blockIdx.x);
    const DeviceSamplingParams p = params[row];
    float* l = logits + size_t(row) * vocab;
    // Repetition: each distinct id once (HF); then presence/frequency over the output ids.
    for (int i = p.rep_begin + int(threadIdx.x); i < p.rep_end; i += int(blockDim.x)) {
        float& v = l[ids[i]];
        v = v > 0.0f ? v / p.repetition : v * p.repetition;
    }
    __syncthreads();
    for (int i = p.pf_begin + int(threadIdx.x); i < p.pf_end; i += int(blockDim.x))
        l[ids[i]] -= p.frequency * float(counts[i]) + p.presence;
}

// Ids at or past `from` are padding rows of the embedding (Qwen pads its vocabulary): never sampled.
__global__ void __launch_bounds__(256) mask_padding_kernel(float* logits, int vocab, int from) {
    float* l = logits + size_t(blockIdx.y) * vocab;
    for (int i = from + int(blockIdx.x * blockDim.x + threadIdx.x); i < vocab; i += int(gridDim.x * blockDim.x)) l[i] = -INFINITY;
}

}  // namespace

void mask_padded_vocab(float* logits, int vocab, int rows, int from, cudaStream_t stream) {
    if (rows <= 0 || from >= vocab) return;
    const int n = vocab - from;
    const int blocks_x = (n + 255) / 256 < 16 ? (n + 255) / 256 : 16;
    launch(mask_padding_kernel, dim3(unsigned(blocks_x), unsigned(rows)), dim3(256), 0, stream, logits, vocab, from);
}

void apply_penalties(float* logits, int vocab, int rows, const DeviceSamplingParams* params, const int32_t* ids,
                     const int32_t* counts, cudaStream_t stream) {
    if (rows <= 0) return;
    launch(penalty_kernel, dim3(unsigned(rows)), dim3(256), 0, stream, logits, vocab, params, ids, counts);
}

void sample_tokens(float* logits, int vocab, int rows, const DeviceSamplingParams* params, int32_t* out, cudaStream_t stream) {
    if (rows <= 0) return;
    if (vocab >= (1 << 24)) throw Error("sample_tokens: vocabularies of 2^24 tokens or more are not supported");
    // Small vocabularies (tests) need fewer threads; the kernel works with any multiple of 32.
    const int threads = vocab >= kThreads ? kThreads : ((vocab + 31) / 32) * 32;
    launch(sample_kernel, dim3(unsigned(rows)), dim3(unsigned(threads)), 0, stream, logits, vocab, params, out);
}

}  // namespace folio::cuda
