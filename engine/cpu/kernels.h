#pragma once
// Matmul kernels of the CPU backend, compiled once per instruction set from one source
// (kernels_impl.inc). Every variant performs the same fp32 operations in the same order (no FMA
// contraction, fixed lane structure), so the instruction set changes speed, never results.
#include <cstdint>

#include "engine/model/weights.h"

namespace folio::cpu {

struct KernelTable {
    const char* isa;  // "avx512", "avx2", "generic"
    // y[t, o] for o in [row_begin, row_end), t < m; W dense [out, in]; x [m, in]; y [m, out].
    void (*dense_rows)(const DenseMatrix& w, int row_begin, int row_end, const float* x, int m, float* y);
    // y[t, o] for o in [col_begin, col_end) (multiples of 8), AWQ W; x [m, in]; y [m, out].
    void (*awq_cols)(const AwqMatrix& w, int col_begin, int col_end, const float* x, int m, float* y);
    // sum a[i] * b[i] with the fixed 16-lane structure.
    float (*dot)(const float* a, const float* b, int n);
};

// The fastest table this CPU supports (chosen once).
const KernelTable& kernels();
// A specific one, for tests: "generic", "avx2", "avx512"; nullptr when this CPU lacks it.
const KernelTable* kernels_for(const char* isa);

}  // namespace folio::cpu
