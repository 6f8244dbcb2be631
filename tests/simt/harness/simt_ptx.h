#pragma once
// Host implementations of the inline-PTX wrappers in kernels/common/ptx.cuh, following the fragment
// layouts of the PTX ISA ("Matrix fragments for mma.m16n8k16", "ldmatrix"). Each is a warp
// collective: the lanes publish their registers or row addresses and every lane computes its own
// share of the result, exactly as the instruction distributes it.
#include <cstdint>

namespace folio::simt {

// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: D = A(16x16) * B(16x8) + C, fp32 accumulation.
void mma_m16n8k16_f16_f32(float d[4], const uint32_t a[4], const uint32_t b[2], const float c[4]);
// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
void mma_m16n8k16_bf16_f32(float d[4], const uint32_t a[4], const uint32_t b[2], const float c[4]);

// mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32: D = A(16x32) * B(32x8) + C, fp32 accumulation,
// four E4M3 codes per register (the 8-bit fragment layout of the PTX ISA).
void mma_m16n8k32_e4m3_f32(float d[4], const uint32_t a[4], const uint32_t b[2], const float c[4]);

// ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: `count` 8x8 matrices of 16-bit elements,
// lanes 8i..8i+7 giving the row addresses of matrix i.
void ldmatrix(uint32_t* regs, int count, bool trans, const void* row_address);

}  // namespace folio::simt
