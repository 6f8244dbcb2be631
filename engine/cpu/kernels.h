#pragma once
// Kernels of the CPU backend, compiled once per instruction set from one source (kernels_impl.inc).
// Every variant performs the same fp32 operations in the same order (no FMA contraction, fixed lane
// structure), so the instruction set changes speed, never results.
//
// Instruction-set isolation (kernels_isa.h says how): only the functions behind these tables use
// AVX2/AVX-512/AMX, and a table is handed out only when the CPU has its instructions, so a CPU
// without them never executes one. tests/engine/cpu/isa_isolation_test.cpp proves it on the objects.
#include <cstddef>
#include <cstdint>

#include "engine/model/weights.h"

namespace folio {
struct KvLayout;
}

namespace folio::cpu {
struct AwqPacked;
struct QuantizedActs;
}

namespace folio::cpu {

inline constexpr int kMaxAttnRows = 16;

// One layer's FP8 KV pools (KvLayout order, one code per element): value = code * scale.
struct Fp8KvPools {
    const uint8_t* k = nullptr;
    const uint8_t* v = nullptr;
    float k_scale = 1.0f, v_scale = 1.0f;
    bool e5m2 = false;  // E5M2 codes (else E4M3)
};

struct KernelTable {
    const char* isa;  // "avx512", "avx2", "generic"
    // y[t, o] for o in [row_begin, row_end), t < m; W dense [out, in]; x [m, in]; y [m, out].
    void (*dense_rows)(const DenseMatrix& w, int row_begin, int row_end, const float* x, int m, float* y);
    // y[t, o] for o in [col_begin, col_end) (multiples of 8), AWQ W; x [m, in]; y [m, out].
    void (*awq_cols)(const AwqMatrix& w, int col_begin, int col_end, const float* x, int m, float* y);
    // sum a[i] * b[i] with the fixed 16-lane structure.
    float (*dot)(const float* a, const float* b, int n);
    // y[t * ldy + o] for the columns of blocks [cb_begin, cb_end) of a packed AWQ matrix (4-bit, or
    // 8-bit from pack_q8), t < m, from
    // activations quantized with block = group size (act_quant.h). Integer sums per group, then the
    // fp32 epilogue in group order: bitwise the same for every m, row position and instruction set.
    void (*awq_int)(const AwqPacked& w, int cb_begin, int cb_end, const QuantizedActs& x, int m, float* y, int ldy);
    // One row of quantize_acts: part p of block b goes to q + b * block_stride + p * part_stride;
    // scale and sum [cols / block].
    void (*quantize_row)(const float* x, int cols, int block, int parts, int8_t* q, int block_stride, int part_stride,
                         float* scale, float* sum);
    // ops.h attention_head, bit for bit, faster: the query attends to positions [first_key, num_keys)
    // (first_key > 0 under a sliding window; keys before it are never read); `scores` holds
    // num_keys floats of scratch.
    void (*attention_row)(const float* q, float* out, int first_key, int num_keys, int kv_head, const KvLayout& layout,
                          const float* k_pool, const float* v_pool, const int32_t* block_table, float scale, float* scores);
    // attention_row for `rows` (<= kMaxAttnRows) query rows of one KV head, bit for bit, reading
    // each key and value once; scores: rows * max(num_keys) floats of scratch.
    void (*attention_rows)(const float* const* q, float* const* out, const int* first_key, const int* num_keys, int rows,
                           int kv_head, const KvLayout& layout, const float* k_pool, const float* v_pool,
                           const int32_t* block_table, float scale, float* scores);
    // out[i] = silu(gate[i]) * up[i] = gate[i] / (1 + e^-gate[i]) * up[i], with the softmax's exp16 (so
    // every instruction set gives the same bits); ops.h silu_mul calls this.
    void (*silu_mul)(const float* gate, const float* up, float* out, int64_t n);
    // y[t, o] for o in [row_begin, row_end), t < m; FP8 W [out, in] decoded to its exact fp32 values
    // (code * row scale, engine/core/fp8.h): bit for bit dense_rows on the dequantized fp32 matrix.
    void (*fp8_rows)(const Fp8Matrix& w, int row_begin, int row_end, const float* x, int m, float* y);
    // attention_row / attention_rows over FP8 pools, bit for bit the fp32 kernels on pools holding the
    // decoded values (code * scale). head_dim at most 512.
    void (*attention_row_fp8)(const float* q, float* out, int first_key, int num_keys, int kv_head, const KvLayout& layout,
                              const Fp8KvPools& kv, const int32_t* block_table, float scale, float* scores);
    void (*attention_rows_fp8)(const float* const* q, float* const* out, const int* first_key, const int* num_keys, int rows,
                               int kv_head, const KvLayout& layout, const Fp8KvPools& kv, const int32_t* block_table, float scale,
                               float* scores);
};

// The table the backend uses, chosen once per process: the fastest this CPU supports, or the one
// the environment variable FOLIO_CPU_ISA names (generic, avx2, avx512, amx; "auto" or unset: the
// fastest) so that every path can be run and tested on one machine. Throws folio::Error when
// FOLIO_CPU_ISA names an unknown set or one this CPU lacks.
const KernelTable& kernels();
// A specific one, for tests: "generic", "avx2", "avx512", "amx"; nullptr when this CPU lacks it.
const KernelTable* kernels_for(const char* isa);
// What kernels() does with a value of FOLIO_CPU_ISA (nullptr: unset), uncached, for tests.
const KernelTable& choose_kernels(const char* requested);

// The fast mode's dense kernels for 16-bit weights (int8 mode; the exact mode never uses them). Not
// bit-identical to dense_rows; each element depends only on its row and token, so results are the same
// bits for any m or rows (tests/engine/cpu/dense_half_kernel_test.cpp checks both, and the error bounds).
//  - "avx512fp16" (F16 weights): fp16 products on AVX512-FP16, each lane summing `steps` of them in fp16
//    before it is folded into fp32; the activations are rounded to fp16 after a power-of-two scale. Error
//    at most about (steps + 2) * 2^-11 * sum |w x|, typically far less.
//  - "avx512bf16" (F16 and BF16 weights): weights and activations rounded to bf16, pairs of products
//    summed into fp32 by VDPBF16PS. Error at most about 2 * 2^-8 * sum |w x| (bf16 weights: 2^-8),
//    typically far less.
// Which one a CPU gets, and why: kernels.cpp (dense_half_kernels_for).
struct DenseHalfTable {
    const char* isa;   // "avx512fp16" or "avx512bf16"
    int steps;         // fp16: 32-input steps summed in fp16 per fold; bf16: 0 (products summed in fp32)
    int bits;          // significant bits of the rounded activations (and weights): 11 or 8
    bool bf16_weights; // also takes BF16 weights (else F16 only)
    // The largest |w| of n 16-bit weights (fp16 or bf16) as bits with the sign cleared (fp16 >= 0x7C00,
    // bf16 >= 0x7F80: infinity or NaN).
    uint16_t (*absmax_bits)(const uint16_t* w, size_t n);
    // x rows [t_begin, t_end) of [., in] to 16 bits in xh [., ldx] (ldx >= in rounded up to 32, zero-padded);
    // fp16 scales each row by a power of two chosen from w_absmax (the largest |w| of every matrix it will
    // meet) so that no fp16 product or partial sum overflows; unscale[t] undoes it (bf16: 1).
    void (*acts_to_half)(const float* x, int t_begin, int t_end, int in, float w_absmax, uint16_t* xh, int ldx, float* unscale);
    // y[t, o] for o in [row_begin, row_end), t < m; W dense [out, in] of a dtype the kernel takes; xh
    // from acts_to_half.
    void (*dense_rows)(const DenseMatrix& w, int row_begin, int row_end, const uint16_t* xh, int ldx, const float* unscale, int m,
                       float* y);
};
// The kernel the int8 mode uses for dense 16-bit weights on this CPU (nullptr: the fp32 FMA kernel).
const DenseHalfTable* dense_half_kernels();
// The same for a given kernel table (for tests): nullptr unless `base` is avx512/amx and the CPU has
// AVX512-FP16 or AVX512-BF16.
const DenseHalfTable* dense_half_kernels_for(const KernelTable& base);
// A specific one, "avx512fp16" or "avx512bf16", for tests: nullptr when this CPU lacks it.
const DenseHalfTable* dense_half_kernels_named(const char* isa);

// Per-thread scratch for kernels, 64-byte aligned, at least `bytes` long, kept between calls (so a
// step allocates nothing once warm). Each slot is a separate buffer; contents are undefined on
// return. Lives in a baseline translation unit so that instruction-set builds instantiate no
// shared template code (std::vector and friends) of their own.
enum class ScratchSlot { DenseRows, DenseAcc, AmxWeights, AmxAcc, Fp8Rows, Fp8Out, HalfActs, HalfUnscale, AttnWeights, Count };
void* kernel_scratch(ScratchSlot slot, size_t bytes);

}  // namespace folio::cpu
