#include "engine/cpu/act_quant.h"

#include <algorithm>
#include <cmath>

namespace folio::cpu {

void quantize_acts(const float* x, int rows, int cols, int block, int parts, QuantizedActs& out) {
    out.rows = rows;
    out.cols = cols;
    out.block = block;
    out.parts = parts;
    out.blocks_per_row = cols / block;
    out.q.resize(size_t(rows) * size_t(parts) * size_t(cols));
    out.scale.resize(size_t(rows) * size_t(out.blocks_per_row));
    out.sum.resize(out.scale.size());
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + size_t(r) * cols;
        for (int b = 0; b < out.blocks_per_row; ++b) {
            float amax = 0.0f;
            for (int i = b * block; i < (b + 1) * block; ++i) amax = std::max(amax, std::fabs(xr[i]));
            const float d = amax / 127.0f;
            // Residuals in double: x / d is then exact to far below what the parts resolve.
            const double inv = d > 0.0f ? 1.0 / double(d) : 0.0;
            int32_t sums[3] = {0, 0, 0};
            for (int i = b * block; i < (b + 1) * block; ++i) {
                double res = double(xr[i]) * inv;
                for (int p = 0; p < parts; ++p) {
                    const double v = std::clamp(std::nearbyint(res), -127.0, 127.0);
                    out.q[(size_t(r) * parts + size_t(p)) * size_t(cols) + size_t(i)] = int8_t(v);
                    sums[p] += int32_t(v);
                    res = (res - v) * 128.0;
                }
            }
            out.scale[size_t(r) * out.blocks_per_row + size_t(b)] = d;
            out.sum[size_t(r) * out.blocks_per_row + size_t(b)] = combine_parts(sums, parts);
        }
    }
}

}  // namespace folio::cpu
