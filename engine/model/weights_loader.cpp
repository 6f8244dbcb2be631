#include "engine/model/weights_loader.h"

#include "engine/core/error.h"
#include "engine/model/compressed_tensors_config.h"
#include "engine/model/compressed_tensors_weights.h"
#include "engine/model/fp8_config.h"
#include "engine/model/fp8_weights.h"
#include "engine/model/architectures.h"

namespace folio {

namespace {

const std::vector<DType> kFloatTypes = {DType::F32, DType::F16, DType::BF16};

FloatTensor float_tensor(const Checkpoint& ck, const std::string& name, const std::vector<int64_t>& shape) {
    const TensorInfo& t = ck.require(name, kFloatTypes, shape);
    return FloatTensor{t.dtype, t.shape, t.data};
}

bool not_converted(const QuantConfig& q, const std::string& module) {
    for (const auto& m : q.modules_to_not_convert)
        if (!m.empty() && module.find(m) != std::string::npos) return true;
    return false;
}

// An unquantized linear's weight; an F8 tensor here means config.json does not describe the checkpoint.
const TensorInfo& dense_weight(const Checkpoint& ck, const ModelConfig& c, const std::string& module, int in, int out) {
    if (const TensorInfo* t = ck.find(module + ".weight"); t && is_fp8(t->dtype))
        refuse_unexpected_fp8(*t, c.quant.method == QuantConfig::Method::Fp8
                                      ? "config.json's quantization_config leaves " + module + " unquantized (its ignore list names it)"
                                      : std::string("config.json has no FP8 quantization_config"));
    if (!ck.contains(module + ".weight") && ck.contains(module + ".weight_packed"))
        throw Error("tensor '" + module + ".weight_packed' holds packed int4 weights but config.json leaves " + module +
                    " unquantized (" + (c.quant.pack_quantized ? "quantization_config's ignore list names it" : "no pack-quantized quantization_config") + ")");
    return ck.require(module + ".weight", kFloatTypes, {out, in});
}

Linear load_linear(const Checkpoint& ck, const ModelConfig& c, const std::string& module, int in, int out,
                   std::vector<std::shared_ptr<const void>>& storage) {
    Linear l;
    l.in = in;
    l.out = out;
    if (c.quant.method == QuantConfig::Method::Fp8 && !fp8_ignored(c.quant.fp8, module))
        return load_fp8_linear(ck, c.quant.fp8, module, in, out, storage);
    if (c.quant.method == QuantConfig::Method::Awq && c.quant.pack_quantized && !module_ignored(c.quant.ignore, module))
        return load_pack_quantized_linear(ck, c.quant, module, in, out, storage);
    const bool awq = c.quant.method == QuantConfig::Method::Awq && !c.quant.pack_quantized && !not_converted(c.quant, module);
    if (!awq) {
        const TensorInfo& w = dense_weight(ck, c, module, in, out);
        l.kind = Linear::Kind::Dense;
        l.dense = DenseMatrix{w.dtype, out, in, w.data};
        return l;
    }
    const int g = c.quant.group_size;
    if (in % g != 0)
        throw Error("AWQ group size " + std::to_string(g) + " does not divide the " + std::to_string(in) + " input features of " +
                    module + ": the checkpoint's quantization settings are wrong");
    if (!ck.contains(module + ".qweight") && ck.contains(module + ".weight"))
        throw Error("tensor '" + module + ".qweight' is missing: config.json says AWQ but the checkpoint holds an "
                    "unquantized '" + module + ".weight' (list the module in modules_to_not_convert?)");
    if (out % 8 != 0)
        throw Error(module + " has " + std::to_string(out) + " output features, not a multiple of 8 as AWQ packing needs");
    const TensorInfo& qw = ck.require(module + ".qweight", {DType::I32}, {in, out / 8});
    const TensorInfo& qz = ck.require(module + ".qzeros", {DType::I32}, {in / g, out / 8});
    const TensorInfo& sc = ck.require(module + ".scales", {DType::F16}, {in / g, out});
    l.kind = Linear::Kind::Awq;
    l.awq = AwqMatrix{in, out, g, static_cast<const int32_t*>(qw.data), static_cast<const int32_t*>(qz.data),
                      static_cast<const uint16_t*>(sc.data)};
    return l;
}

}  // namespace

uint64_t linear_bytes(const Linear& l) {
    if (l.kind == Linear::Kind::Dense) return uint64_t(l.out) * uint64_t(l.in) * dtype_size(l.dense.dtype);
    if (l.kind == Linear::Kind::Fp8) return uint64_t(l.out) * uint64_t(l.in) + uint64_t(l.out) * 4;  // codes + row scales
    const uint64_t groups = uint64_t(l.in / l.awq.group_size);
    return uint64_t(l.in) * uint64_t(l.out) / 2 + groups * uint64_t(l.out) / 2 + groups * uint64_t(l.out) * 2;
}

uint64_t weight_bytes_per_token(const ModelWeights& w) {
    uint64_t bytes = 0;
    const auto norm = [](const FloatTensor& t) { return uint64_t(t.numel()) * dtype_size(t.dtype); };
    for (const auto& layer : w.layers) {
        for (const Linear* l : {&layer.q_proj, &layer.k_proj, &layer.v_proj, &layer.o_proj, &layer.gate_proj,
                                &layer.up_proj, &layer.down_proj})
            bytes += linear_bytes(*l);
        bytes += norm(layer.input_norm) + norm(layer.post_attention_norm);
        for (const FloatTensor* t : {&layer.q_bias, &layer.k_bias, &layer.v_bias, &layer.q_norm, &layer.k_norm})
            if (t->data) bytes += norm(*t);
    }
    bytes += norm(w.final_norm) + linear_bytes(w.lm_head);
    return bytes;
}

ModelWeights load_weights(const Checkpoint& ck, const ModelConfig& c, const LoadProgressFn& progress) {
    ModelWeights w;
    const int h = c.hidden_size, hd = c.head_dim;
    report(progress, "mapping weights", 0, c.num_layers + 1, "layers");
    const Architecture* arch = find_architecture(c.architecture);
    w.embed_tokens = float_tensor(ck, "model.embed_tokens.weight", {c.vocab_size, h});
    for (int i = 0; i < c.num_layers; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        LayerWeights L;
        L.input_norm = float_tensor(ck, p + "input_layernorm.weight", {h});
        L.post_attention_norm = float_tensor(ck, p + "post_attention_layernorm.weight", {h});
        L.q_proj = load_linear(ck, c, p + "self_attn.q_proj", h, c.num_heads * hd, w.storage);
        L.k_proj = load_linear(ck, c, p + "self_attn.k_proj", h, c.num_kv_heads * hd, w.storage);
        L.v_proj = load_linear(ck, c, p + "self_attn.v_proj", h, c.num_kv_heads * hd, w.storage);
        L.o_proj = load_linear(ck, c, p + "self_attn.o_proj", c.num_heads * hd, h, w.storage);
        L.gate_proj = load_linear(ck, c, p + "mlp.gate_proj", h, c.intermediate_size, w.storage);
        L.up_proj = load_linear(ck, c, p + "mlp.up_proj", h, c.intermediate_size, w.storage);
        L.down_proj = load_linear(ck, c, p + "mlp.down_proj", c.intermediate_size, h, w.storage);
        // Biases stay in a float dtype next to AWQ's packed weights (AutoAWQ keeps them as nn.Linear does).
        if (arch && arch->qkv_bias) {
            L.q_bias = float_tensor(ck, p + "self_attn.q_proj.bias", {c.num_heads * hd});
            L.k_bias = float_tensor(ck, p + "self_attn.k_proj.bias", {c.num_kv_heads * hd});
            L.v_bias = float_tensor(ck, p + "self_attn.v_proj.bias", {c.num_kv_heads * hd});
        }
        if (arch && arch->head_norms) {
            L.q_norm = float_tensor(ck, p + "self_attn.q_norm.weight", {hd});
            L.k_norm = float_tensor(ck, p + "self_attn.k_norm.weight", {hd});
        }
        w.layers.push_back(std::move(L));
        report(progress, "mapping weights", i + 1, c.num_layers + 1, "layers");
    }
    w.final_norm = float_tensor(ck, "model.norm.weight", {h});
    load_kv_scales(ck, c, w);
    if (c.tie_word_embeddings || !ck.contains("lm_head.weight")) {
        if (!c.tie_word_embeddings)
            throw Error("tensor 'lm_head.weight' is missing from the checkpoint in " + ck.dir() +
                        " and config.json does not set tie_word_embeddings");
        // Tied: transformers uses the embedding matrix even when a copy of lm_head is stored.
        w.lm_head.kind = Linear::Kind::Dense;
        w.lm_head.in = h;
        w.lm_head.out = c.vocab_size;
        w.lm_head.dense = DenseMatrix{w.embed_tokens.dtype, c.vocab_size, h, w.embed_tokens.data};
    } else {
        // lm_head stays unquantized (as vLLM keeps it), whatever the ignore list says.
        if (const TensorInfo* f = ck.find("lm_head.weight"); f && is_fp8(f->dtype))
            refuse_unexpected_fp8(*f, "Folio keeps lm_head in fp16/bf16/fp32 (an FP8 lm_head is not supported)");
        const TensorInfo& t = ck.require("lm_head.weight", kFloatTypes, {c.vocab_size, h});
        w.lm_head.kind = Linear::Kind::Dense;
        w.lm_head.in = h;
        w.lm_head.out = c.vocab_size;
        w.lm_head.dense = DenseMatrix{t.dtype, c.vocab_size, h, t.data};
    }
    for (const auto& m : ck.mappings()) w.storage.push_back(m);
    w.bytes_per_token = weight_bytes_per_token(w);
    report(progress, "mapping weights", c.num_layers + 1, c.num_layers + 1, "layers");
    return w;
}

}  // namespace folio
