#pragma once
// Every inline-PTX instruction the kernels use, each behind one small wrapper. The SIMT harness
// implements the same wrappers on the host from the PTX ISA's fragment layouts (tests/simt/harness/
// ptx_host.cpp), so kernels that use tensor cores run in CPU tests unchanged. All need sm_80+.
#include <cstdint>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda::ptx {

// D = A * B + C with A 16x16 (row), B 16x8 (col), fp16 inputs, fp32 accumulators. Fragments as in
// the PTX ISA: a[i] holds two halves, b[i] two halves, c/d four floats per lane.
__device__ __forceinline__ void mma_m16n8k16_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                                                 const float (&c)[4]) {
#if defined(FOLIO_SIMT)
    simt::mma_m16n8k16_f16_f32(d, a, b, c);
#else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#endif
}

// D = A * B + C with A 16x32 (row), B 32x8 (col), FP8 E4M3 inputs (four codes per register), fp32
// accumulators: mma.sync m16n8k32 e4m3, PTX ISA 8.4 (CUDA 12.4+), sm_89 and newer only. Fragments as
// for 8-bit integer mma: a[0] = row g, k 4t..4t+3; a[1] = row g + 8; a[2], a[3] the same at k + 16;
// b[0] = k 4t..4t+3 of column g, b[1] = k + 16. Callers must not launch it below sm_89.
__device__ __forceinline__ void mma_m16n8k32_e4m3(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4]) {
#if defined(FOLIO_SIMT)
    simt::mma_m16n8k32_e4m3_f32(d, a, b, c);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
    (void)a, (void)b;
    d[0] = c[0], d[1] = c[1], d[2] = c[2], d[3] = c[3];
    __trap();  // compiled for an architecture without FP8 tensor cores: the host never launches this
#endif
}

#if !defined(FOLIO_SIMT)
__device__ __forceinline__ uint32_t smem_addr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }
#endif

// Four 8x8 b16 matrices from shared memory; lanes 8i..8i+7 give the row addresses of matrix i.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
#if defined(FOLIO_SIMT)
    simt::ldmatrix(r, 4, false, row);
#else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(row)));
#endif
}

// The same, each matrix transposed.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) {
#if defined(FOLIO_SIMT)
    simt::ldmatrix(r, 4, true, row);
#else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(row)));
#endif
}

// Two 8x8 matrices (lanes 0..15 give the rows).
__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], const void* row) {
#if defined(FOLIO_SIMT)
    simt::ldmatrix(r, 2, false, row);
#else
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(smem_addr(row)));
#endif
}

// 16 bytes global -> shared without passing through registers; when `valid` is false nothing is
// read and the 16 bytes are zero-filled (out-of-range rows of a tile).
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, bool valid) {
#if defined(FOLIO_SIMT)
    simt::cp_async(smem, gmem, 16, valid ? 16 : 0);
#else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem)), "l"(gmem), "r"(valid ? 16 : 0));
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(FOLIO_SIMT)
    simt::cp_async_commit();
#else
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#if defined(FOLIO_SIMT)
    simt::cp_async_wait(N);
#else
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

// Two floats -> one register of two halves (low = first), the A/B operand format of mma.
__device__ __forceinline__ uint32_t pack_half2(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    uint32_t r;
    memcpy(&r, &h, 4);
    return r;
}

}  // namespace folio::cuda::ptx
