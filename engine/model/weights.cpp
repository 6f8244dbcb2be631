#include "engine/model/weights.h"

#include <algorithm>

#include "engine/core/fp8.h"
#include "engine/core/half.h"

namespace folio {

void row_to_f32(const FloatTensor& t, int64_t row, int64_t cols, float* out) {
    const size_t off = size_t(row) * size_t(cols);
    switch (t.dtype) {
        case DType::F32: {
            const float* s = static_cast<const float*>(t.data) + off;
            std::copy(s, s + cols, out);
            break;
        }
        case DType::F16: {
            const uint16_t* s = static_cast<const uint16_t*>(t.data) + off;
            for (int64_t i = 0; i < cols; ++i) out[i] = f16_to_f32(s[i]);
            break;
        }
        case DType::BF16: {
            const uint16_t* s = static_cast<const uint16_t*>(t.data) + off;
            for (int64_t i = 0; i < cols; ++i) out[i] = bf16_to_f32(s[i]);
            break;
        }
        case DType::F8_E4M3: {  // unscaled codes; FP8 weights live in Fp8Matrix with their scales
            const uint8_t* s = static_cast<const uint8_t*>(t.data) + off;
            for (int64_t i = 0; i < cols; ++i) out[i] = fp8_e4m3_to_f32(s[i]);
            break;
        }
        case DType::F8_E5M2: {
            const uint8_t* s = static_cast<const uint8_t*>(t.data) + off;
            for (int64_t i = 0; i < cols; ++i) out[i] = fp8_e5m2_to_f32(s[i]);
            break;
        }
        case DType::I32:
        case DType::I64: break;  // never a float tensor; the loader rejects it
    }
}

}  // namespace folio
