#pragma once
// The AutoAWQ GEMM packing: eight 4-bit values per int32, interleaved so that nibble i holds output
// column kAwqPackOrder[i] of its group of eight. Shared by the loader, dummy models, CPU kernels and
// tests so the order is written down once.
#include <cstdint>
#include <vector>

#include "engine/core/half.h"
#include "engine/model/weights.h"

namespace folio {

inline constexpr int kAwqPackOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};  // nibble -> column
inline constexpr int kAwqNibbleOf[8] = {0, 4, 1, 5, 2, 6, 3, 7};   // column -> nibble

// The 4-bit value of output column `col` (0..7 within its int32) in a packed int32.
inline int awq_unpack(int32_t packed, int col) {
    return int((uint32_t(packed) >> (4 * kAwqNibbleOf[col])) & 0xFu);
}

// w[i][o] = (q - z) * s in fp32: the exact value every backend must use.
inline float awq_weight(const AwqMatrix& m, int i, int o) {
    const int words = m.out / 8;
    const int g = i / m.group_size;
    const int q = awq_unpack(m.qweight[int64_t(i) * words + o / 8], o % 8);
    const int z = awq_unpack(m.qzeros[int64_t(g) * words + o / 8], o % 8);
    return float(q - z) * f16_to_f32(m.scales[int64_t(g) * m.out + o]);
}

// Packs 4-bit values (row-major [rows, cols], each 0..15) into AutoAWQ int32 words [rows, cols/8].
std::vector<int32_t> awq_pack(const std::vector<uint8_t>& values, int rows, int cols);

}  // namespace folio
