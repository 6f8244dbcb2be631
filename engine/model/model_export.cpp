#include "engine/model/model_export.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/model/awq_quantize.h"
#include "engine/model/safetensors_writer.h"
#include "engine/model/weights.h"
#include "engine/tokenizer/tokenizer_loader.h"

namespace folio {

namespace fs = std::filesystem;

namespace {

const char* torch_dtype_name(DType t) { return t == DType::F32 ? "float32" : t == DType::BF16 ? "bfloat16" : "float16"; }

nlohmann::ordered_json config_json(const ModelConfig& c, const ExportOptions& o) {
    nlohmann::ordered_json j;
    j["architectures"] = {c.architecture};
    j["model_type"] = c.model_type;
    j["hidden_size"] = c.hidden_size;
    j["intermediate_size"] = c.intermediate_size;
    j["num_hidden_layers"] = c.num_layers;
    j["num_attention_heads"] = c.num_heads;
    j["num_key_value_heads"] = c.num_kv_heads;
    j["head_dim"] = c.head_dim;
    j["vocab_size"] = c.vocab_size;
    j["max_position_embeddings"] = c.max_position_embeddings;
    j["rms_norm_eps"] = c.rms_norm_eps;
    j["rope_theta"] = c.rope_theta;
    j["hidden_act"] = "silu";
    j["tie_word_embeddings"] = c.tie_word_embeddings;
    j["bos_token_id"] = c.bos_token_id;
    j["eos_token_id"] = c.eos_token_ids.size() == 1 ? nlohmann::ordered_json(c.eos_token_ids[0]) : nlohmann::ordered_json(c.eos_token_ids);
    if (c.sliding_window) j["sliding_window"] = *c.sliding_window;
    if (c.rope_scaling) {
        const RopeScaling& r = *c.rope_scaling;
        j["rope_scaling"] = {{"rope_type", r.type}, {"factor", r.factor}};
        if (r.type == "llama3") {
            j["rope_scaling"]["low_freq_factor"] = r.low_freq_factor;
            j["rope_scaling"]["high_freq_factor"] = r.high_freq_factor;
            j["rope_scaling"]["original_max_position_embeddings"] = r.original_max_position_embeddings;
        }
    }
    j["torch_dtype"] = torch_dtype_name(o.dtype.value_or(c.torch_dtype));
    if (o.awq)
        j["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", o.group_size}, {"zero_point", true}, {"version", "gemm"}};
    return j;
}

template <class T>
TensorToWrite bytes_of(std::string name, const char* dtype, std::vector<int64_t> shape, const T* data, size_t count) {
    return {std::move(name), dtype, std::move(shape), count * sizeof(T),
            [data, count](std::string& out) { out.append(reinterpret_cast<const char*>(data), count * sizeof(T)); }};
}

// Calls f(values, first, count) on t as fp32 in consecutive pieces (row_to_f32 reads every float
// dtype), so that a large tensor is never held twice in full.
template <class F>
void for_each_f32_piece(const FloatTensor& t, F f) {
    constexpr int64_t kPiece = int64_t(1) << 16;
    const int64_t n = t.numel();
    std::vector<float> buf(size_t(std::min(n, kPiece)));
    for (int64_t at = 0; at < n; at += kPiece) {
        const int64_t len = std::min(kPiece, n - at);
        const FloatTensor piece{t.dtype, {len}, static_cast<const char*>(t.data) + size_t(at) * dtype_size(t.dtype)};
        row_to_f32(piece, 0, len, buf.data());
        f(buf.data(), size_t(at), size_t(len));
    }
}

// fp16 holds magnitudes up to 65504: a larger finite weight would become infinity, so the export is
// refused (as the CUDA upload refuses it) rather than clamped; checked before anything is written.
void check_fp16_range(const std::string& name, const FloatTensor& t) {
    if (t.dtype == DType::F16) return;
    size_t count = 0;
    float largest = 0;
    for_each_f32_piece(t, [&](const float* v, size_t, size_t len) {
        for (size_t i = 0; i < len; ++i) {
            const float a = std::fabs(v[i]);
            if (a > 65504.0f && std::isfinite(a)) ++count, largest = std::max(largest, a);
        }
    });
    if (count)
        throw Error(name + ": " + std::to_string(count) + " weight(s) beyond fp16's range (largest magnitude " + std::to_string(largest) +
                    "); export it as bf16 or fp32");
}

// The tensor as stored, or converted element by element (round to nearest even) to `to`.
TensorToWrite float_tensor(std::string name, const FloatTensor& t, std::optional<DType> to = std::nullopt) {
    const DType out = to.value_or(t.dtype);
    const size_t n = size_t(t.numel());
    if (out == DType::F16) check_fp16_range(name, t);
    if (out == t.dtype)
        return {std::move(name), std::string(dtype_name(t.dtype)), t.shape, n * dtype_size(t.dtype),
                [t, n](std::string& o) { o.append(static_cast<const char*>(t.data), n * dtype_size(t.dtype)); }};
    return {std::move(name), std::string(dtype_name(out)), t.shape, n * dtype_size(out), [t, n, out](std::string& o) {
                const size_t at = o.size();
                o.resize(at + n * dtype_size(out));
                char* dst = o.data() + at;
                for_each_f32_piece(t, [&](const float* v, size_t first, size_t len) {
                    if (out == DType::F32) {
                        std::memcpy(dst + 4 * first, v, 4 * len);
                        return;
                    }
                    for (size_t i = 0; i < len; ++i) {
                        const uint16_t h = out == DType::F16 ? f32_to_f16(v[i]) : f32_to_bf16(v[i]);
                        std::memcpy(dst + 2 * (first + i), &h, 2);
                    }
                });
            }};
}

TensorToWrite dense_tensor(std::string name, const DenseMatrix& m, std::optional<DType> to) {
    return float_tensor(std::move(name), FloatTensor{m.dtype, {m.rows, m.cols}, m.data}, to);
}

// The three AutoAWQ tensors of a linear, quantized when the first of them is written.
void add_awq(std::vector<TensorToWrite>& out, const std::string& prefix, const DenseMatrix& m, int group_size) {
    auto q = std::make_shared<AwqTensors>();
    const int64_t in = m.cols, outf = m.rows, groups = in / group_size;
    if (outf % 8 != 0 || in % group_size != 0)
        throw Error(prefix + " [" + std::to_string(outf) + ", " + std::to_string(in) + "] cannot be quantized with group size " +
                    std::to_string(group_size) + " (outputs must be a multiple of 8, inputs of the group size)");
    out.push_back({prefix + ".qweight", "I32", {in, outf / 8}, size_t(in * outf / 8) * 4, [q, m, group_size](std::string& o) {
                       *q = awq_quantize_rtn(m, group_size);
                       o.append(reinterpret_cast<const char*>(q->qweight.data()), q->qweight.size() * 4);
                   }});
    out.push_back({prefix + ".qzeros", "I32", {groups, outf / 8}, size_t(groups * outf / 8) * 4,
                   [q](std::string& o) { o.append(reinterpret_cast<const char*>(q->qzeros.data()), q->qzeros.size() * 4); }});
    out.push_back({prefix + ".scales", "F16", {groups, outf}, size_t(groups * outf) * 2, [q](std::string& o) {
                       o.append(reinterpret_cast<const char*>(q->scales.data()), q->scales.size() * 2);
                       *q = AwqTensors{};  // the matrix is written: free it before the next one
                   }});
}

}  // namespace

void export_model(const Model& model, const ExportOptions& o) {
    const ModelConfig& c = model.config;
    if (c.quant.method != QuantConfig::Method::None)
        throw Error("export needs a float model (fp16, bf16 or fp32 weights); " + model.name + " is " + model.quantization_name());
    if (o.dtype && *o.dtype != DType::F32 && *o.dtype != DType::F16 && *o.dtype != DType::BF16)
        throw Error("export writes floats as fp32, fp16 or bf16, not " + std::string(dtype_name(*o.dtype)));
    if (o.awq && o.group_size != 32 && o.group_size != 64 && o.group_size != 128)
        throw Error("AWQ group size " + std::to_string(o.group_size) + " is not supported (32, 64 or 128)");
    if (c.rope_scaling) throw Error("export does not write rope_scaling yet; " + model.name + " has it");
    fs::path tok = o.tokenizer_model;
    if (!tok.empty() && fs::is_directory(tok)) tok /= "tokenizer.model";
    if (tok.empty() || !fs::is_regular_file(tok))
        throw Error("export needs a sentencepiece tokenizer.model (--tokenizer FILE|DIR)" + (tok.empty() ? std::string() : ": " + tok.string() + " is not a file"));
    const int vocab = load_tokenizer(tok.string())->vocab_size();
    if (vocab != c.vocab_size)
        throw Error(tok.string() + " has " + std::to_string(vocab) + " tokens but " + model.name + " has a vocabulary of " +
                    std::to_string(c.vocab_size));
    const fs::path dir(o.out_dir);
    std::error_code ec;
    if (fs::exists(dir) && !(fs::is_directory(dir) && fs::is_empty(dir)))
        throw Error(dir.string() + " exists and is not an empty folder; name a new folder");

    const ModelWeights& w = model.weights;
    std::vector<TensorToWrite> tensors;
    tensors.push_back(float_tensor("model.embed_tokens.weight", w.embed_tokens, o.dtype));
    for (size_t l = 0; l < w.layers.size(); ++l) {
        const LayerWeights& L = w.layers[l];
        const std::string p = "model.layers." + std::to_string(l) + ".";
        tensors.push_back(float_tensor(p + "input_layernorm.weight", L.input_norm, o.dtype));
        tensors.push_back(float_tensor(p + "post_attention_layernorm.weight", L.post_attention_norm, o.dtype));
        for (const auto& [name, lin] : {std::pair{"self_attn.q_proj", &L.q_proj}, {"self_attn.k_proj", &L.k_proj}, {"self_attn.v_proj", &L.v_proj},
                                        {"self_attn.o_proj", &L.o_proj}, {"mlp.gate_proj", &L.gate_proj}, {"mlp.up_proj", &L.up_proj},
                                        {"mlp.down_proj", &L.down_proj}}) {
            if (o.awq) add_awq(tensors, p + name, lin->dense, o.group_size);
            else tensors.push_back(dense_tensor(p + name + ".weight", lin->dense, o.dtype));
        }
        // Qwen2's q/k/v biases and Qwen3's head norms, where the family has them.
        for (const auto& [name, t] : {std::pair{"self_attn.q_proj.bias", &L.q_bias}, {"self_attn.k_proj.bias", &L.k_bias},
                                      {"self_attn.v_proj.bias", &L.v_bias}, {"self_attn.q_norm.weight", &L.q_norm},
                                      {"self_attn.k_norm.weight", &L.k_norm}})
            if (t->data) tensors.push_back(float_tensor(p + name, *t, o.dtype));
    }
    tensors.push_back(float_tensor("model.norm.weight", w.final_norm, o.dtype));
    if (!c.tie_word_embeddings) tensors.push_back(dense_tensor("lm_head.weight", w.lm_head.dense, o.dtype));
    fs::create_directories(dir, ec);  // only now: every shape is known to be exportable
    if (ec) throw Error("cannot create " + dir.string() + ": " + ec.message());
    write_safetensors_file((dir / "model.safetensors").string(), tensors);

    std::ofstream cfg(dir / "config.json");
    cfg << config_json(c, o).dump(2) << "\n";
    if (!cfg) throw Error("cannot write " + (dir / "config.json").string());
    fs::copy_file(tok, dir / "tokenizer.model", ec);
    if (ec) throw Error("cannot copy " + tok.string() + " into " + dir.string() + ": " + ec.message());
}

}  // namespace folio
