#include "engine/model/awq_quantize.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/model/awq.h"

namespace folio {

namespace {

float element(const DenseMatrix& w, int64_t i) {
    if (w.dtype == DType::F32) return static_cast<const float*>(w.data)[i];
    const uint16_t h = static_cast<const uint16_t*>(w.data)[i];
    return w.dtype == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
}

}  // namespace

AwqTensors awq_quantize_rtn(const DenseMatrix& w, int group_size) {
    const int in = w.cols, out = w.rows;
    if (group_size <= 0 || in % group_size != 0 || out % 8 != 0)
        throw Error("cannot quantize a [" + std::to_string(out) + ", " + std::to_string(in) + "] matrix to AWQ with group size " +
                    std::to_string(group_size) + ": the outputs must be a multiple of 8 and the inputs of the group size");
    const int groups = in / group_size;
    std::vector<uint8_t> q(size_t(in) * size_t(out)), z(size_t(groups) * size_t(out));
    AwqTensors t;
    t.in = in;
    t.out = out;
    t.group_size = group_size;
    t.scales.resize(size_t(groups) * size_t(out));
    std::vector<float> row(static_cast<size_t>(in));
    for (int o = 0; o < out; ++o) {
        for (int i = 0; i < in; ++i) row[size_t(i)] = element(w, int64_t(o) * in + i);
        for (int g = 0; g < groups; ++g) {
            const float* v = row.data() + size_t(g) * size_t(group_size);
            const auto [lo, hi] = std::minmax_element(v, v + group_size);
            const uint16_t sh = f32_to_f16(std::max(*hi - *lo, 1e-5f) / 15.0f);
            const float s = f16_to_f32(sh);
            const float zero = std::clamp(-std::nearbyint(*lo / s), 0.0f, 15.0f);
            t.scales[size_t(g) * size_t(out) + size_t(o)] = sh;
            z[size_t(g) * size_t(out) + size_t(o)] = uint8_t(zero);
            for (int k = 0; k < group_size; ++k)
                q[size_t(g * group_size + k) * size_t(out) + size_t(o)] = uint8_t(std::clamp(std::nearbyint(v[k] / s) + zero, 0.0f, 15.0f));
        }
    }
    t.qweight = awq_pack(q, in, out);
    t.qzeros = awq_pack(z, groups, out);
    return t;
}

}  // namespace folio
