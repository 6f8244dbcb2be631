#pragma once
// The device side of CUDA C++ for kernels compiled as host C++ (FOLIO_SIMT builds): qualifiers,
// built-in index variables, half/bfloat16 types and intrinsics, warp shuffles and votes, atomics,
// shared memory and the math functions our kernels use. Semantics follow the CUDA C++ Programming
// Guide; where the hardware result is undefined (a shuffle from a lane outside the mask, mismatched
// masks, a deadlocked barrier) the harness stops the launch with an error instead of guessing.
//
// Threads of a block run as fibers on one OS thread, one block at a time (see block_runner.cpp), so
// plain memory operations are atomic with respect to other emulated threads.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "engine/core/half.h"

// ---- qualifiers -------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
// Static shared memory: one instance for the whole program, which is exactly one per block because
// blocks run one after another. Dynamic shared memory comes from folio::cuda::dynamic_smem<T>().
#define __shared__ static
#define __grid_constant__

// ---- vector and index types ---------------------------------------------------------------------
struct uint3 { unsigned int x, y, z; };
struct dim3 {
    unsigned int x = 1, y = 1, z = 1;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(const uint3& v) : x(v.x), y(v.y), z(v.z) {}
};
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) uint2 { unsigned int x, y; };
struct alignas(16) uint4 { unsigned int x, y, z, w; };
struct alignas(4) ushort2 { unsigned short x, y; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }

// ---- harness internals the device functions below call ----------------------------------------
namespace folio::simt {

inline constexpr int kWarpSize = 32;
inline constexpr int kSlotBytes = 64;  // the most one lane contributes to a warp collective (mma.sync: 40)

// The "special registers" of the running emulated thread, updated at every fiber switch.
struct Registers {
    uint3 thread_idx{0, 0, 0};
    uint3 block_idx{0, 0, 0};
    dim3 block_dim;
    dim3 grid_dim;
};
extern Registers g_regs;

unsigned lane_id();
void syncthreads();
int syncthreads_reduce(int value, int op);  // op 0: count, 1: and, 2: or
// Warp collective: publishes `bytes` of `mine` for the calling lane and waits for every lane of
// `mask` (restricted to lanes that exist). Returns the 32 slots (kSlotBytes apart); read them, then
// call warp_exchange_end(). `*members` receives the effective mask.
const unsigned char* warp_exchange_begin(unsigned mask, const void* mine, size_t bytes, unsigned* members);
void warp_exchange_end();
// Between begin and end: a scratch area shared by the lanes reading the same exchange, so that work
// every lane would repeat (rebuilding an mma's matrices) is done once; `*first` tells the first reader.
void* warp_exchange_scratch(bool* first);
inline constexpr size_t kExchangeScratchBytes = 1024;
void* dynamic_smem();
[[noreturn]] void fail(const std::string& message);  // stops the launch with a harness error

template <class T>
T shuffle(unsigned mask, const T& value, int (*source)(int lane, int arg, int width), int arg, int width) {
    static_assert(sizeof(T) <= size_t(kSlotBytes) && std::is_trivially_copyable_v<T>, "shuffle of an unsupported type");
    if (width <= 0 || width > kWarpSize || (width & (width - 1)) != 0) fail("shuffle width must be a power of two <= 32");
    unsigned members = 0;
    const unsigned char* slots = warp_exchange_begin(mask, &value, sizeof(T), &members);
    const int lane = int(lane_id());
    const int src = source(lane, arg, width);
    T out;
    if (src < 0) {
        out = value;  // outside the segment: the caller's own value, as the hardware returns
    } else {
        if (!((members >> src) & 1u)) {
            warp_exchange_end();
            fail("lane " + std::to_string(lane) + " shuffles from lane " + std::to_string(src) +
                 ", which is not in the mask (undefined on the device)");
        }
        std::memcpy(&out, slots + size_t(src) * kSlotBytes, sizeof(T));
    }
    warp_exchange_end();
    return out;
}

}  // namespace folio::simt

#define threadIdx (::folio::simt::g_regs.thread_idx)
#define blockIdx (::folio::simt::g_regs.block_idx)
#define blockDim (::folio::simt::g_regs.block_dim)
#define gridDim (::folio::simt::g_regs.grid_dim)
inline constexpr int warpSize = 32;

// ---- synchronisation ------------------------------------------------------------------------------
inline void __syncthreads() { folio::simt::syncthreads(); }
inline int __syncthreads_count(int p) { return folio::simt::syncthreads_reduce(p != 0, 0); }
inline int __syncthreads_and(int p) { return folio::simt::syncthreads_reduce(p != 0, 1); }
inline int __syncthreads_or(int p) { return folio::simt::syncthreads_reduce(p != 0, 2); }
inline void __syncwarp(unsigned mask = 0xffffffffu) {
    const char none = 0;
    unsigned members;
    folio::simt::warp_exchange_begin(mask, &none, 1, &members);
    folio::simt::warp_exchange_end();
}
inline void __threadfence() {}
inline void __threadfence_block() {}
inline void __trap() { folio::simt::fail("__trap() called"); }
inline unsigned __activemask() {
    const char none = 0;
    unsigned members;
    folio::simt::warp_exchange_begin(0xffffffffu, &none, 1, &members);
    folio::simt::warp_exchange_end();
    return members;
}

// ---- warp shuffles and votes ------------------------------------------------------------------------
template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) {
    return folio::simt::shuffle<T>(mask, var, [](int lane, int a, int w) { return (lane / w) * w + (a & (w - 1)); }, src_lane, width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
    return folio::simt::shuffle<T>(mask, var, [](int lane, int a, int w) {
        const int src = lane ^ a;
        return src >= (lane / w + 1) * w ? -1 : src;  // later segments are out of reach
    }, lane_mask, width);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
    return folio::simt::shuffle<T>(mask, var, [](int lane, int a, int w) {
        const int src = lane + a;
        return src >= (lane / w + 1) * w ? -1 : src;
    }, int(delta), width);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
    return folio::simt::shuffle<T>(mask, var, [](int lane, int a, int w) {
        const int src = lane - a;
        return src < (lane / w) * w ? -1 : src;
    }, int(delta), width);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
    const char p = predicate != 0;
    unsigned members = 0;
    const unsigned char* slots = folio::simt::warp_exchange_begin(mask, &p, 1, &members);
    unsigned bits = 0;
    for (int l = 0; l < 32; ++l)
        if (((members >> l) & 1u) && slots[size_t(l) * folio::simt::kSlotBytes]) bits |= 1u << l;
    folio::simt::warp_exchange_end();
    return bits;
}
inline int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
inline int __all_sync(unsigned mask, int predicate) {
    const char p = predicate != 0;
    unsigned members = 0;
    const unsigned char* slots = folio::simt::warp_exchange_begin(mask, &p, 1, &members);
    int all = 1;
    for (int l = 0; l < 32; ++l)
        if (((members >> l) & 1u) && !slots[size_t(l) * folio::simt::kSlotBytes]) all = 0;
    folio::simt::warp_exchange_end();
    return all;
}

// ---- atomics (one emulated thread runs at a time, so read-modify-write is indivisible) -----------
template <class T> inline T folio_simt_atomic_rmw(T* p, T v, int op) {
    const T old = *p;
    switch (op) {
        case 0: *p = old + v; break;
        case 1: *p = v > old ? v : old; break;
        case 2: *p = v < old ? v : old; break;
        case 3: *p = v; break;
        case 4: *p = old - v; break;
    }
    return old;
}
inline float atomicAdd(float* p, float v) { return folio_simt_atomic_rmw(p, v, 0); }
inline double atomicAdd(double* p, double v) { return folio_simt_atomic_rmw(p, v, 0); }
inline int atomicAdd(int* p, int v) { return folio_simt_atomic_rmw(p, v, 0); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return folio_simt_atomic_rmw(p, v, 0); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { return folio_simt_atomic_rmw(p, v, 0); }
inline int atomicSub(int* p, int v) { return folio_simt_atomic_rmw(p, v, 4); }
inline unsigned atomicSub(unsigned* p, unsigned v) { return folio_simt_atomic_rmw(p, v, 4); }
inline int atomicMax(int* p, int v) { return folio_simt_atomic_rmw(p, v, 1); }
inline unsigned atomicMax(unsigned* p, unsigned v) { return folio_simt_atomic_rmw(p, v, 1); }
inline unsigned long long atomicMax(unsigned long long* p, unsigned long long v) { return folio_simt_atomic_rmw(p, v, 1); }
inline int atomicMin(int* p, int v) { return folio_simt_atomic_rmw(p, v, 2); }
inline unsigned atomicMin(unsigned* p, unsigned v) { return folio_simt_atomic_rmw(p, v, 2); }
inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) { return folio_simt_atomic_rmw(p, v, 2); }
inline int atomicExch(int* p, int v) { return folio_simt_atomic_rmw(p, v, 3); }
inline unsigned atomicExch(unsigned* p, unsigned v) { return folio_simt_atomic_rmw(p, v, 3); }
inline float atomicExch(float* p, float v) { return folio_simt_atomic_rmw(p, v, 3); }
template <class T> inline T folio_simt_cas(T* p, T compare, T v) {
    const T old = *p;
    if (old == compare) *p = v;
    return old;
}
inline int atomicCAS(int* p, int c, int v) { return folio_simt_cas(p, c, v); }
inline unsigned atomicCAS(unsigned* p, unsigned c, unsigned v) { return folio_simt_cas(p, c, v); }
inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long c, unsigned long long v) {
    return folio_simt_cas(p, c, v);
}
inline unsigned atomicInc(unsigned* p, unsigned limit) {
    const unsigned old = *p;
    *p = old >= limit ? 0u : old + 1u;
    return old;
}

// ---- bit and integer intrinsics ----------------------------------------------------------------------
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned __umulhi(unsigned a, unsigned b) { return unsigned((uint64_t(a) * b) >> 32); }
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    const uint64_t v = (uint64_t(y) << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= unsigned((v >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
    return r;
}
inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float f) { int x; std::memcpy(&x, &f, 4); return x; }
inline float __uint_as_float(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned x; std::memcpy(&x, &f, 4); return x; }
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }

// ---- float math --------------------------------------------------------------------------------------
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline void __sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
inline int __float2int_rn(float x) { return int(std::nearbyint(x)); }
inline int __float2int_rd(float x) { return int(std::floor(x)); }
inline unsigned __float2uint_rn(float x) { return unsigned(std::nearbyint(x)); }
inline float __int2float_rn(int x) { return float(x); }

// ---- half and bfloat16 -------------------------------------------------------------------------------
// Storage types with the device intrinsics. Each operation computes in fp32 and rounds once to the
// 16-bit format, which is what the hardware does for single operations (fma included, up to a
// double-rounding corner that tests never depend on).
struct __half_raw { unsigned short x; };
struct alignas(2) __half {
    unsigned short x;
    __half() = default;
    __half(const __half_raw& r) : x(r.x) {}
    __half(float f) : x(folio::f32_to_f16(f)) {}
    __half(double f) : x(folio::f32_to_f16(float(f))) {}
    __half(int v) : x(folio::f32_to_f16(float(v))) {}
    operator float() const { return folio::f16_to_f32(x); }
    operator __half_raw() const { return {x}; }
};
struct alignas(4) __half2 {
    __half x, y;
    __half2() = default;
    __half2(__half a, __half b) : x(a), y(b) {}
};
using half = __half;
using half2 = __half2;

struct alignas(2) __nv_bfloat16 {
    unsigned short x;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f) : x(folio::f32_to_bf16(f)) {}
    operator float() const { return folio::bf16_to_f32(x); }
};
struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
};
using nv_bfloat16 = __nv_bfloat16;
using nv_bfloat162 = __nv_bfloat162;

inline __half folio_simt_h(unsigned short bits) { __half h; h.x = bits; return h; }
inline float __half2float(__half h) { return folio::f16_to_f32(h.x); }
inline __half __float2half(float f) { return folio_simt_h(folio::f32_to_f16(f)); }
inline __half __float2half_rn(float f) { return __float2half(f); }
inline __half __ushort_as_half(unsigned short v) { return folio_simt_h(v); }
inline unsigned short __half_as_ushort(__half h) { return h.x; }
inline __half2 __halves2half2(__half a, __half b) { return {a, b}; }
inline __half2 __half2half2(__half a) { return {a, a}; }
inline __half2 make_half2(__half a, __half b) { return {a, b}; }
inline __half2 __floats2half2_rn(float a, float b) { return {__float2half(a), __float2half(b)}; }
inline __half2 __float2half2_rn(float a) { return {__float2half(a), __float2half(a)}; }
inline __half2 __float22half2_rn(float2 f) { return {__float2half(f.x), __float2half(f.y)}; }
inline float2 __half22float2(__half2 h) { return {__half2float(h.x), __half2float(h.y)}; }
inline float __low2float(__half2 h) { return __half2float(h.x); }
inline float __high2float(__half2 h) { return __half2float(h.y); }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half __hadd(__half a, __half b) { return __float2half(__half2float(a) + __half2float(b)); }
inline __half __hsub(__half a, __half b) { return __float2half(__half2float(a) - __half2float(b)); }
inline __half __hmul(__half a, __half b) { return __float2half(__half2float(a) * __half2float(b)); }
inline __half __hfma(__half a, __half b, __half c) {
    return __float2half(float(double(__half2float(a)) * __half2float(b) + __half2float(c)));
}
inline __half __hneg(__half a) { return folio_simt_h(a.x ^ 0x8000u); }
inline __half __hmax(__half a, __half b) { return __half2float(a) >= __half2float(b) ? a : b; }
inline __half __hmin(__half a, __half b) { return __half2float(a) <= __half2float(b) ? a : b; }
inline bool __hisnan(__half a) { return std::isnan(__half2float(a)); }
inline bool __hisinf(__half a) { return std::isinf(__half2float(a)); }
inline __half2 __hadd2(__half2 a, __half2 b) { return {__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
inline __half2 __hsub2(__half2 a, __half2 b) { return {__hsub(a.x, b.x), __hsub(a.y, b.y)}; }
inline __half2 __hmul2(__half2 a, __half2 b) { return {__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }
inline __half2 __hneg2(__half2 a) { return {__hneg(a.x), __hneg(a.y)}; }

inline float __bfloat162float(__nv_bfloat16 b) { return folio::bf16_to_f32(b.x); }
inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short v) { __nv_bfloat16 b; b.x = v; return b; }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.x; }
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return {__bfloat162float(h.x), __bfloat162float(h.y)}; }

// ---- the integer and float min/max overloads device code has in the global namespace -------------
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
