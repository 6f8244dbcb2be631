#include "engine/model/fp8_weights.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/half.h"

namespace folio {

namespace {

float element(const TensorInfo& t, int64_t i) {
    switch (t.dtype) {
        // memcpy: a scale tensor in a safetensors file need not be aligned to its element size.
        case DType::F32: { float v; std::memcpy(&v, static_cast<const char*>(t.data) + 4 * i, 4); return v; }
        case DType::F16: { uint16_t v; std::memcpy(&v, static_cast<const char*>(t.data) + 2 * i, 2); return f16_to_f32(v); }
        case DType::BF16: { uint16_t v; std::memcpy(&v, static_cast<const char*>(t.data) + 2 * i, 2); return bf16_to_f32(v); }
        default: break;
    }
    throw Error(t.file + ": tensor '" + t.name + "' has dtype " + std::string(dtype_name(t.dtype)) + ", expected F32, BF16 or F16");
}

std::string number(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", double(v));
    return buf;
}

// A scale must be a finite, non-negative number (a zero scale is an all-zero row or tensor).
void check_scale(const TensorInfo& t, float v, int64_t index) {
    if (std::isfinite(v) && v >= 0.0f) return;
    throw Error(t.file + ": tensor '" + t.name + "' holds " + (std::isnan(v) ? "a NaN" : std::isinf(v) ? "an infinite" : "a negative") +
                " scale (" + number(v) + (t.numel() > 1 ? " at row " + std::to_string(index) : std::string()) +
                "): the checkpoint is corrupt or was quantized wrongly");
}

bool is_scalar(const TensorInfo& t) { return t.shape.empty() || (t.shape.size() == 1 && t.shape[0] == 1); }

const TensorInfo& require_tensor(const Checkpoint& ck, const std::string& name, const std::string& why) {
    const TensorInfo* t = ck.find(name);
    if (!t) throw Error("tensor '" + name + "' is missing from the checkpoint in " + ck.dir() + " (" + why + ")");
    return *t;
}

}  // namespace

float read_scalar_scale(const TensorInfo& t) {
    if (!is_scalar(t))
        throw Error(t.file + ": tensor '" + t.name + "' has shape " + t.shape_string() + ", expected a single value ([] or [1])");
    const float v = element(t, 0);
    check_scale(t, v, 0);
    return v;
}

void refuse_unexpected_fp8(const TensorInfo& t, const std::string& why) {
    throw Error(t.file + ": tensor '" + t.name + "' is " + std::string(dtype_name(t.dtype)) + " but " + why +
                ": config.json does not describe this checkpoint (an FP8 checkpoint's quantization_config names "
                "quant_method \"fp8\" or \"compressed-tensors\" and lists the unquantized modules)");
}

Linear load_fp8_linear(const Checkpoint& ck, const Fp8Config& c, const std::string& module, int in, int out,
                       std::vector<std::shared_ptr<const void>>& storage) {
    const TensorInfo& w = require_tensor(ck, module + ".weight", "config.json says FP8");
    if (!is_fp8(w.dtype))
        throw Error(w.file + ": tensor '" + w.name + "' is " + std::string(dtype_name(w.dtype)) +
                    " but config.json's quantization_config says the linears are FP8 (F8_E4M3); if this module was left "
                    "unquantized, the config's ignore list (\"ignored_layers\" / \"ignore\") must name " + module);
    if (w.shape != std::vector<int64_t>{out, in})
        throw Error(w.file + ": tensor '" + w.name + "' has shape " + w.shape_string() + ", expected [" + std::to_string(out) + ", " +
                    std::to_string(in) + "] from config.json");
    // A NaN code (E4M3 S.1111.111; E5M2 exponent all ones) would poison every output it reaches.
    const auto* codes = static_cast<const uint8_t*>(w.data);
    int64_t bad = 0, first_bad = -1;
    for (int64_t i = 0, n = w.numel(); i < n; ++i) {
        const uint8_t a = codes[i] & 0x7F;
        if (w.dtype == DType::F8_E4M3 ? a == 0x7F : a >= 0x7C) {
            if (bad++ == 0) first_bad = i;
        }
    }
    if (bad)
        throw Error(w.file + ": tensor '" + w.name + "' holds " + std::to_string(bad) + " NaN or infinite FP8 code(s) (the first at row " +
                    std::to_string(first_bad / in) + ", column " + std::to_string(first_bad % in) + "): the checkpoint is corrupt");

    const TensorInfo& s = require_tensor(ck, module + ".weight_scale", "every FP8 linear has a weight_scale");
    auto scales = std::shared_ptr<float[]>(new float[size_t(out)]);
    const bool per_channel = (s.shape == std::vector<int64_t>{out, 1} || s.shape == std::vector<int64_t>{out}) && out > 1;
    if (is_scalar(s)) {
        const float v = read_scalar_scale(s);
        for (int o = 0; o < out; ++o) scales[size_t(o)] = v;
    } else if (per_channel) {
        for (int o = 0; o < out; ++o) {
            const float v = element(s, o);
            check_scale(s, v, o);
            scales[size_t(o)] = v;
        }
    } else {
        throw Error(s.file + ": tensor '" + s.name + "' has shape " + s.shape_string() + ", expected [] or [1] (one scale per tensor) or [" +
                    std::to_string(out) + ", 1] (one per output channel)");
    }
    if (c.weight_scales == Fp8Config::WeightScales::PerChannel && !per_channel && out > 1)
        throw Error(s.file + ": tensor '" + s.name + "' has shape " + s.shape_string() + " but config.json's weights strategy is \"channel\": expected [" +
                    std::to_string(out) + ", 1]");
    if (c.weight_scales == Fp8Config::WeightScales::PerTensor && per_channel)
        throw Error(s.file + ": tensor '" + s.name + "' has shape " + s.shape_string() +
                    " but config.json's weights strategy is per tensor: expected a single value");

    Linear l;
    l.kind = Linear::Kind::Fp8;
    l.in = in;
    l.out = out;
    l.fp8 = Fp8Matrix{w.dtype, out, in, codes, scales.get(), 0.0f};
    if (c.activations == Fp8Config::Activations::StaticPerTensor) {
        const TensorInfo& is = require_tensor(ck, module + ".input_scale", "the activation scheme is static");
        l.fp8.input_scale = read_scalar_scale(is);
        if (!(l.fp8.input_scale > 0.0f))
            throw Error(is.file + ": tensor '" + is.name + "' is 0; a static activation scale must be positive");
    }
    storage.push_back(std::shared_ptr<const void>(scales, scales.get()));
    return l;
}

void load_kv_scales(const Checkpoint& ck, const ModelConfig& config, ModelWeights& weights) {
    int found = 0;
    std::string first_missing;
    for (int i = 0; i < config.num_layers; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".self_attn.";
        const TensorInfo* k = nullptr;
        const TensorInfo* v = nullptr;
        for (const auto& [kn, vn] : {std::pair<std::string, std::string>{"k_scale", "v_scale"},
                                     {"k_proj.output_scale", "v_proj.output_scale"},
                                     {"k_proj.k_scale", "v_proj.v_scale"},
                                     {"kv_scale", "kv_scale"}}) {
            k = ck.find(p + kn);
            v = ck.find(p + vn);
            if (k || v) break;
        }
        if (!k && !v) {
            if (first_missing.empty()) first_missing = p + "k_scale";
            continue;
        }
        if (!k || !v)
            throw Error("layer " + std::to_string(i) + " of the checkpoint in " + ck.dir() + " has a " + (k ? "k" : "v") +
                        " scale but no " + (k ? "v" : "k") + " scale ('" + (k ? k->name : v->name) + "')");
        LayerWeights& L = weights.layers[size_t(i)];
        L.k_scale = read_scalar_scale(*k);
        L.v_scale = read_scalar_scale(*v);
        if (!(L.k_scale > 0.0f) || !(L.v_scale > 0.0f))
            throw Error(k->file + ": the KV cache scales of layer " + std::to_string(i) + " must be positive");
        ++found;
    }
    const bool scheme = config.quant.method == QuantConfig::Method::Fp8 && config.quant.fp8.kv_cache_scheme;
    if ((scheme && found < config.num_layers) || (found > 0 && found < config.num_layers))
        throw Error("tensor '" + first_missing + "' (or another name for layer scales of the KV cache) is missing from the checkpoint in " +
                    ck.dir() + ": " + std::to_string(found) + " of " + std::to_string(config.num_layers) + " layers have k/v scales" +
                    (scheme ? " although config.json has a kv_cache_scheme" : ""));
    weights.kv_scales_from_checkpoint = found == config.num_layers;
}

}  // namespace folio
