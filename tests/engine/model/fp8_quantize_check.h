#pragma once
// One layer of a dummy shape at its real matrix sizes, quantized at load and checked against the
// definition: scale = amax(row) / 448 exactly, code = fp8_e4m3(w / scale) for sampled rows, the
// source buffer released, lm_head untouched, about half the bytes of fp16.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/core/fp8.h"
#include "engine/core/half.h"
#include "engine/model/dummy_model.h"
#include "engine/model/fp8_quantize.h"
#include "engine/model/model.h"

namespace folio::test {

inline bool storage_holds(const ModelWeights& w, const void* p) {
    for (const auto& s : w.storage)
        if (s.get() == p) return true;
    return false;
}

// name: a dummy name with its dtype suffix, e.g. "llama-2-7b-fp16".
inline void check_dummy_shape(const std::string& name) {
    SCOPED_TRACE(name);
    Model m;
    m.name = name;
    m.config = dummy_config(name);
    m.config.num_layers = 1;    // one layer at the real matrix sizes
    m.config.vocab_size = 256;  // lm_head is left alone anyway
    m.weights = dummy_weights(m.config, 7);
    const Linear before = m.weights.layers[0].down_proj;
    const size_t esize = dtype_size(before.dense.dtype);
    const std::vector<uint8_t> src(static_cast<const uint8_t*>(before.dense.data),
                                   static_cast<const uint8_t*>(before.dense.data) + size_t(before.in) * before.out * esize);
    const auto weight = [&](size_t i) {
        if (before.dense.dtype == DType::F32) return reinterpret_cast<const float*>(src.data())[i];
        const uint16_t h = reinterpret_cast<const uint16_t*>(src.data())[i];
        return before.dense.dtype == DType::BF16 ? bf16_to_f32(h) : f16_to_f32(h);
    };
    const void* lm_head = m.weights.lm_head.dense.data;
    const Fp8QuantizeStats s = quantize_fp8_at_load(m);
    EXPECT_EQ(s.matrices, 7);
    EXPECT_EQ(m.config.quant.method, QuantConfig::Method::Fp8);
    EXPECT_EQ(m.quantization_name(), "fp8-e4m3-channel (at load)");
    EXPECT_EQ(m.weights.lm_head.kind, Linear::Kind::Dense);
    EXPECT_EQ(m.weights.lm_head.dense.data, lm_head);
    EXPECT_FALSE(storage_holds(m.weights, before.dense.data)) << "the source buffer was not released";
    // One byte per weight and a float per row: about half of fp16, a quarter of fp32.
    EXPECT_LT(double(s.bytes_after), (esize == 4 ? 0.26 : 0.51) * double(s.bytes_before));
    const Linear& after = m.weights.layers[0].down_proj;
    ASSERT_EQ(after.kind, Linear::Kind::Fp8);
    ASSERT_EQ(after.fp8.rows, before.out);
    ASSERT_EQ(after.fp8.cols, before.in);
    for (int r = 0; r < after.out; r += std::max(1, after.out / 37)) {
        float amax = 0;
        for (int i = 0; i < after.in; ++i) amax = std::max(amax, std::fabs(weight(size_t(r) * after.in + i)));
        ASSERT_EQ(after.fp8.scales[r], amax / 448.0f) << "row " << r;
        for (int i = 0; i < after.in; ++i)
            ASSERT_EQ(after.fp8.data[size_t(r) * after.in + i], f32_to_fp8_e4m3(weight(size_t(r) * after.in + i) / after.fp8.scales[r]))
                << r << ", " << i;
    }
}

}  // namespace folio::test
