#include "engine/model/awq.h"

namespace folio {

std::vector<int32_t> awq_pack(const std::vector<uint8_t>& values, int rows, int cols) {
    const int words = cols / 8;
    std::vector<int32_t> out(size_t(rows) * size_t(words), 0);
    for (int r = 0; r < rows; ++r)
        for (int w = 0; w < words; ++w) {
            uint32_t packed = 0;
            for (int nib = 0; nib < 8; ++nib)
                packed |= uint32_t(values[size_t(r) * cols + size_t(w) * 8 + size_t(kAwqPackOrder[nib])] & 0xF) << (4 * nib);
            out[size_t(r) * words + size_t(w)] = int32_t(packed);
        }
    return out;
}

}  // namespace folio
