#pragma once
// Round-to-nearest 4-bit quantisation of a dense matrix into the AutoAWQ GEMM layout, as AutoAWQ's
// pseudo_quantize_tensor does it with zero points: per group of `group_size` inputs and per output,
// s = max(max - min, 1e-5) / 15 (stored as fp16), z = clamp(-round(min / s), 0, 15),
// q = clamp(round(w / s) + z, 0, 15), rounding half to even. AWQ's activation-aware scale search is
// not done: it needs calibration text, and random benchmark weights give it nothing to find.
#include <cstdint>
#include <vector>

#include "engine/model/weights.h"

namespace folio {

struct AwqTensors {
    int in = 0, out = 0, group_size = 0;
    std::vector<int32_t> qweight;  // [in, out / 8]
    std::vector<int32_t> qzeros;   // [in / group_size, out / 8]
    std::vector<uint16_t> scales;  // [in / group_size, out], fp16 bits
    AwqMatrix view() const { return AwqMatrix{in, out, group_size, qweight.data(), qzeros.data(), scales.data()}; }
};

// Throws folio::Error when the shape cannot be quantized (out not a multiple of 8, in not a multiple
// of the group size).
AwqTensors awq_quantize_rtn(const DenseMatrix& w, int group_size);

}  // namespace folio
