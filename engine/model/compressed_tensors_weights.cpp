#include "engine/model/compressed_tensors_weights.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/core/thread_pool.h"
#include "engine/model/awq.h"

namespace folio {

namespace {

// memcpy: a tensor in a safetensors file need not be aligned to its element size.
uint32_t word_at(const TensorInfo& t, int64_t i) {
    uint32_t v;
    std::memcpy(&v, static_cast<const char*>(t.data) + 4 * i, 4);
    return v;
}

int64_t shape_value(const TensorInfo& t, int i) {
    if (t.dtype == DType::I64) {
        int64_t v;
        std::memcpy(&v, static_cast<const char*>(t.data) + 8 * i, 8);
        return v;
    }
    return int32_t(word_at(t, i));
}

// One scale as IEEE fp16 bits, as the AWQ kernels read it.
uint16_t scale_f16(const TensorInfo& t, int64_t i) {
    uint16_t h;
    float v;
    if (t.dtype == DType::F16) {
        std::memcpy(&h, static_cast<const char*>(t.data) + 2 * i, 2);
        v = f16_to_f32(h);
    } else {
        if (t.dtype == DType::BF16) {
            uint16_t b;
            std::memcpy(&b, static_cast<const char*>(t.data) + 2 * i, 2);
            v = bf16_to_f32(b);
        } else {
            std::memcpy(&v, static_cast<const char*>(t.data) + 4 * i, 4);
        }
        h = f32_to_f16(v);
    }
    const float back = f16_to_f32(h);
    if (!std::isfinite(back) || !(v >= 0.0f)) {
        char value[32];
        std::snprintf(value, sizeof value, "%g", double(v));
        throw Error(t.file + ": tensor '" + t.name + "' holds the scale " + value + " at index " + std::to_string(i) +
                    ": int4 scales must be finite, non-negative and below 65504 (fp16, as the 4-bit kernels take them)");
    }
    return h;
}

std::shared_ptr<void> owned(size_t bytes) { return std::shared_ptr<void>(::operator new(bytes), [](void* p) { ::operator delete(p); }); }

}  // namespace

Linear load_pack_quantized_linear(const Checkpoint& ck, const QuantConfig& q, const std::string& module, int in, int out,
                                  std::vector<std::shared_ptr<const void>>& storage) {
    const int g = q.group_size;
    if (in % g != 0)
        throw Error(module + ": group size " + std::to_string(g) + " does not divide its " + std::to_string(in) +
                    " input features; the 4-bit kernels need whole groups");
    if (out % 8 != 0)
        throw Error(module + " has " + std::to_string(out) + " output features, not a multiple of 8 as the 4-bit kernels' packing needs");
    if (!ck.contains(module + ".weight_packed") && ck.contains(module + ".weight"))
        throw Error("tensor '" + module + ".weight_packed' is missing: config.json says compressed-tensors pack-quantized but the "
                    "checkpoint holds an unquantized '" + module + ".weight' (is the module missing from quantization_config's ignore list?)");
    if (const TensorInfo* gi = ck.find(module + ".weight_g_idx"))
        throw Error(gi->file + ": tensor '" + gi->name + "' permutes the input columns into groups (activation order \"group\"), "
                    "which Folio's 4-bit kernels do not run");
    const int groups = in / g, words = in / 8;
    const TensorInfo& packed = ck.require(module + ".weight_packed", {DType::I32}, {out, words});
    const TensorInfo* scale_info = ck.find(module + ".weight_scale");
    if (!scale_info)
        throw Error("tensor '" + module + ".weight_scale' is missing from the checkpoint in " + ck.dir() +
                    " (every pack-quantized linear stores its group scales)");
    const TensorInfo& scale = ck.require(module + ".weight_scale", {DType::F16, DType::BF16, DType::F32}, {out, groups});
    if (const TensorInfo* shape = ck.find(module + ".weight_shape")) {
        ck.require(module + ".weight_shape", {DType::I32, DType::I64}, {2});
        if (shape_value(*shape, 0) != out || shape_value(*shape, 1) != in)
            throw Error(shape->file + ": tensor '" + shape->name + "' says [" + std::to_string(shape_value(*shape, 0)) + ", " +
                        std::to_string(shape_value(*shape, 1)) + "] but config.json gives this linear [" + std::to_string(out) + ", " +
                        std::to_string(in) + "]");
    }
    const TensorInfo* zero = nullptr;
    if (q.zero_point) {
        if (!ck.contains(module + ".weight_zero_point"))
            throw Error("tensor '" + module + ".weight_zero_point' is missing from the checkpoint in " + ck.dir() +
                        " (config.json says the weights are not symmetric, so each group stores a zero point)");
        zero = &ck.require(module + ".weight_zero_point", {DType::I32}, {out / 8, groups});
    }

    // AWQ: qweight [in, out/8], qzeros [groups, out/8] (nibble kAwqNibbleOf[c] holds column 8k + c),
    // scales [groups, out].
    const int ow = out / 8;
    auto qweight = owned(size_t(in) * ow * 4), qzeros = owned(size_t(groups) * ow * 4), scales = owned(size_t(groups) * out * 2);
    auto* qw = static_cast<int32_t*>(qweight.get());
    auto* qz = static_cast<int32_t*>(qzeros.get());
    auto* sc = static_cast<uint16_t*>(scales.get());
    // Scales first, on this thread: a bad one throws before any worker runs.
    for (int o = 0; o < out; ++o)
        for (int gi = 0; gi < groups; ++gi) sc[int64_t(gi) * out + o] = scale_f16(scale, int64_t(o) * groups + gi);
    ThreadPool pool(0);
    // A block of eight output rows by eight input columns is one word of each row in, one word of
    // each column out: a transpose of 8x8 nibbles.
    // Contiguous ranges of output blocks per thread: neighbouring blocks share cache lines of qweight.
    pool.parallel_for(ow, 16, [&](int64_t ob_begin, int64_t ob_end) {
        for (int64_t ob = ob_begin; ob < ob_end; ++ob) {
            for (int w = 0; w < words; ++w) {
                uint32_t rows[8];
                for (int c = 0; c < 8; ++c) rows[c] = word_at(packed, (ob * 8 + c) * int64_t(words) + w);
                for (int j = 0; j < 8; ++j) {
                    uint32_t col = 0;
                    for (int c = 0; c < 8; ++c) col |= ((rows[c] >> (4 * j)) & 0xFu) << (4 * kAwqNibbleOf[c]);
                    qw[(int64_t(w) * 8 + j) * ow + ob] = int32_t(col);
                }
            }
            for (int gi = 0; gi < groups; ++gi) {
                uint32_t z = 0x88888888u;  // symmetric: every zero is 8
                if (zero) {
                    // compressed-tensors packs output row 8*ob + c in nibble c; AWQ wants nibble kAwqNibbleOf[c].
                    const uint32_t src = word_at(*zero, ob * groups + gi);
                    z = 0;
                    for (int c = 0; c < 8; ++c) z |= ((src >> (4 * c)) & 0xFu) << (4 * kAwqNibbleOf[c]);
                }
                qz[int64_t(gi) * ow + ob] = int32_t(z);
            }
        }
    });
    storage.push_back(qweight);
    storage.push_back(qzeros);
    storage.push_back(scales);
    Linear l;
    l.kind = Linear::Kind::Awq;
    l.in = in;
    l.out = out;
    l.awq = AwqMatrix{in, out, g, qw, qz, sc};
    return l;
}

}  // namespace folio
