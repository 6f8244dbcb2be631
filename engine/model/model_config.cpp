#include "engine/model/model_config.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/error.h"
#include "engine/model/compressed_tensors_config.h"
#include "engine/model/fp8_config.h"
#include "engine/model/architectures.h"

namespace folio {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

class Reader {
public:
    Reader(const json& j, std::string source) : j_(j), source_(std::move(source)) {}

    [[noreturn]] void fail(const std::string& what) const { throw Error(source_ + ": " + what); }

    bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }

    int positive_int(const char* key) const {
        if (!has(key)) fail(std::string("missing \"") + key + "\"");
        return positive_int_value(key, j_[key]);
    }
    int positive_int_or(const char* key, int fallback) const { return has(key) ? positive_int_value(key, j_[key]) : fallback; }

    float number_or(const char* key, float fallback) const {
        if (!has(key)) return fallback;
        if (!j_[key].is_number()) fail(std::string("\"") + key + "\" must be a number");
        return j_[key].get<float>();
    }
    bool bool_or(const char* key, bool fallback) const {
        if (!has(key)) return fallback;
        if (!j_[key].is_boolean()) fail(std::string("\"") + key + "\" must be true or false");
        return j_[key].get<bool>();
    }
    std::string string_or(const char* key, const std::string& fallback) const {
        if (!has(key)) return fallback;
        if (!j_[key].is_string()) fail(std::string("\"") + key + "\" must be a string");
        return j_[key].get<std::string>();
    }
    const json& at(const char* key) const { return j_[key]; }

private:
    int positive_int_value(const char* key, const json& v) const {
        if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > (1 << 30))
            fail(std::string("\"") + key + "\" must be a positive integer, got " + v.dump());
        return v.get<int>();
    }
    const json& j_;
    std::string source_;
};

json parse_json_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    try {
        return json::parse(ss.str());
    } catch (const json::exception& e) {
        throw Error(path + ": not valid JSON: " + e.what());
    }
}

void parse_awq(const json& q, const std::string& source, QuantConfig& out, bool side_file) {
    Reader r(q, source);
    if (!q.is_object()) r.fail("quantization settings are not a JSON object");
    if (side_file && (q.contains("desc_act") || q.contains("damp_percent")))
        r.fail("these are GPTQ settings: GPTQ checkpoints are not supported (use an AutoAWQ GEMM 4-bit or an fp16 checkpoint)");
    if (!side_file || q.contains("quant_method")) {
        const std::string method = r.string_or("quant_method", "");
        if (method != "awq")
            r.fail("quantization method \"" + method + "\" is not supported: Folio runs AutoAWQ GEMM 4-bit, FP8 (\"fp8\", "
                   "\"compressed-tensors\" float-quantized), compressed-tensors int4 pack-quantized or unquantized fp16/bf16/fp32 checkpoints");
    }
    out.method = QuantConfig::Method::Awq;
    out.bits = r.has("bits") ? r.positive_int("bits") : r.positive_int_or("w_bit", 4);
    out.group_size = r.has("group_size") ? r.positive_int("group_size") : r.positive_int_or("q_group_size", 128);
    out.zero_point = r.bool_or("zero_point", true);
    std::string version = r.string_or("version", "gemm");
    for (auto& c : version) c = char(std::tolower(static_cast<unsigned char>(c)));
    out.version = version;
    if (out.bits != 4) r.fail("AWQ with " + std::to_string(out.bits) + " bits is not supported (only 4-bit)");
    if (out.group_size != 32 && out.group_size != 64 && out.group_size != 128)
        r.fail("AWQ group size " + std::to_string(out.group_size) + " is not supported (32, 64 or 128)");
    if (!out.zero_point) r.fail("AWQ without zero points is not supported (zero_point must be true)");
    if (version != "gemm") r.fail("AWQ version \"" + version + "\" is not supported: only the GEMM packing (version \"gemm\")");
    out.modules_to_not_convert.clear();
    if (q.contains("modules_to_not_convert") && !q["modules_to_not_convert"].is_null()) {
        if (!q["modules_to_not_convert"].is_array()) r.fail("\"modules_to_not_convert\" must be a list of names");
        for (const auto& m : q["modules_to_not_convert"]) {
            if (!m.is_string()) r.fail("\"modules_to_not_convert\" must be a list of names");
            out.modules_to_not_convert.push_back(m.get<std::string>());
        }
    }
}

}  // namespace

ModelConfig parse_model_config(const std::string& json_text, const std::string& source) {
    json j;
    try {
        j = json::parse(json_text);
    } catch (const json::exception& e) {
        throw Error(source + ": not valid JSON: " + e.what());
    }
    if (!j.is_object()) throw Error(source + ": not a JSON object");
    Reader r(j, source);
    ModelConfig c;

    c.model_type = r.string_or("model_type", "");
    if (r.has("architectures")) {
        if (!j["architectures"].is_array() || j["architectures"].empty() || !j["architectures"][0].is_string())
            r.fail("\"architectures\" must be a list of names");
        c.architecture = j["architectures"][0].get<std::string>();
    } else if (const Architecture* a = find_architecture_by_model_type(c.model_type)) {
        c.architecture = a->name;
    }
    const Architecture* arch = find_architecture(c.architecture);
    if (!arch)
        r.fail("unknown architecture \"" + (c.architecture.empty() ? c.model_type : c.architecture) + "\": Folio runs " +
               architecture_names() + " checkpoints");
    if (c.model_type.empty()) c.model_type = arch->model_type;

    c.hidden_size = r.positive_int("hidden_size");
    c.intermediate_size = r.positive_int("intermediate_size");
    c.num_layers = r.positive_int("num_hidden_layers");
    c.num_heads = r.positive_int("num_attention_heads");
    c.num_kv_heads = r.positive_int_or("num_key_value_heads", c.num_heads);
    c.vocab_size = r.positive_int("vocab_size");
    if (r.has("head_dim")) {
        c.head_dim = r.positive_int("head_dim");
    } else {
        if (c.hidden_size % c.num_heads != 0)
            r.fail("hidden_size " + std::to_string(c.hidden_size) + " is not divisible by num_attention_heads " + std::to_string(c.num_heads));
        c.head_dim = c.hidden_size / c.num_heads;
    }
    if (c.num_heads % c.num_kv_heads != 0)
        r.fail("num_attention_heads " + std::to_string(c.num_heads) + " is not a multiple of num_key_value_heads " + std::to_string(c.num_kv_heads));
    if (c.head_dim % 2 != 0) r.fail("head_dim " + std::to_string(c.head_dim) + " must be even for rotary embeddings");
    c.max_position_embeddings = r.positive_int_or("max_position_embeddings", 2048);
    c.rms_norm_eps = r.number_or("rms_norm_eps", 1e-6f);
    if (!(c.rms_norm_eps > 0)) r.fail("\"rms_norm_eps\" must be positive");
    c.rope_theta = r.number_or("rope_theta", 10000.0f);
    // transformers 5 writes rope_theta and the scaling together as "rope_parameters"; it wins over the
    // older fields when both are there, as in transformers.
    const char* rope_key = r.has("rope_parameters") ? "rope_parameters" : "rope_scaling";
    if (r.has("rope_parameters")) {
        if (!j["rope_parameters"].is_object()) r.fail("\"rope_parameters\" must be an object");
        c.rope_theta = Reader(j["rope_parameters"], source + " rope_parameters").number_or("rope_theta", c.rope_theta);
    }
    if (!(c.rope_theta > 0)) r.fail("\"rope_theta\" must be positive");

    if (r.has(rope_key)) {
        const json& rs = j[rope_key];
        if (!rs.is_object()) r.fail(std::string("\"") + rope_key + "\" must be an object or null");
        Reader s(rs, source + " " + rope_key);
        RopeScaling scaling;
        scaling.type = s.has("rope_type") ? s.string_or("rope_type", "") : s.string_or("type", "");
        if (scaling.type.empty() && std::string(rope_key) == "rope_parameters") scaling.type = "default";
        scaling.factor = s.number_or("factor", 1.0f);
        if (scaling.type == "llama3") {
            scaling.low_freq_factor = s.number_or("low_freq_factor", 1.0f);
            scaling.high_freq_factor = s.number_or("high_freq_factor", 4.0f);
            scaling.original_max_position_embeddings = s.positive_int_or("original_max_position_embeddings", 8192);
            if (!(scaling.high_freq_factor > scaling.low_freq_factor)) s.fail("high_freq_factor must exceed low_freq_factor");
        } else if (scaling.type == "linear") {
        } else if (scaling.type == "default") {
            scaling.factor = 1.0f;
        } else {
            s.fail("rope scaling type \"" + scaling.type + "\" is not supported (llama3, linear)");
        }
        if (!(scaling.factor > 0)) s.fail("\"factor\" must be positive");
        if (scaling.type != "default") c.rope_scaling = scaling;
    }
    if (r.has("sliding_window")) c.sliding_window = r.positive_int("sliding_window");
    // Qwen2/Qwen3 window only the layers from max_window_layers on, and only with use_sliding_window
    // (false in every released checkpoint): one window for all layers would attend differently.
    if (!arch->honours_sliding_window && r.bool_or("use_sliding_window", false))
        r.fail("use_sliding_window true is not supported for " + c.architecture +
               " (its window applies per layer); set it to false to attend the whole context as the released checkpoints do");

    const std::string act = r.string_or("hidden_act", "silu");
    if (act != "silu") r.fail("hidden_act \"" + act + "\" is not supported (Llama-family models use silu)");
    // Qwen2's q/k/v biases are part of the architecture (architectures.h qkv_bias), whatever this says;
    // elsewhere attention_bias also puts a bias on o_proj, which no step has.
    if (!arch->qkv_bias && r.bool_or("attention_bias", false))
        r.fail("attention_bias true is not supported for " + c.architecture + " (biases on q/k/v/o projections); only Qwen2's q/k/v biases are");
    if (r.bool_or("mlp_bias", false)) r.fail("mlp_bias true is not supported");

    c.tie_word_embeddings = r.bool_or("tie_word_embeddings", false);
    if (r.has("bos_token_id")) {
        if (!j["bos_token_id"].is_number_integer()) r.fail("\"bos_token_id\" must be an integer");
        c.bos_token_id = j["bos_token_id"].get<int>();
    }
    if (r.has("eos_token_id")) {
        c.eos_token_ids.clear();
        const json& e = j["eos_token_id"];
        if (e.is_number_integer()) {
            c.eos_token_ids.push_back(e.get<int>());
        } else if (e.is_array()) {
            for (const auto& x : e) {
                if (!x.is_number_integer()) r.fail("\"eos_token_id\" must be an integer or a list of integers");
                c.eos_token_ids.push_back(x.get<int>());
            }
        } else {
            r.fail("\"eos_token_id\" must be an integer or a list of integers");
        }
    }
    const std::string dtype = r.string_or("torch_dtype", "float16");
    if (dtype == "float16") c.torch_dtype = DType::F16;
    else if (dtype == "bfloat16") c.torch_dtype = DType::BF16;
    else if (dtype == "float32") c.torch_dtype = DType::F32;
    else r.fail("torch_dtype \"" + dtype + "\" is not supported (float16, bfloat16, float32)");

    if (r.has("quantization_config")) {
        if (is_pack_quantized(j["quantization_config"])) parse_pack_quantized(j["quantization_config"], source + " quantization_config", c.quant);
        else if (is_fp8_quant_method(j["quantization_config"])) parse_fp8_quant(j["quantization_config"], source + " quantization_config", c.quant);
        else parse_awq(j["quantization_config"], source + " quantization_config", c.quant, false);
    }
    return c;
}

ModelConfig load_model_config(const std::string& model_dir) {
    const fs::path dir(model_dir);
    if (!fs::is_directory(dir)) throw Error(model_dir + " is not a folder (a model is a local Hugging Face folder or dummy:NAME)");
    const fs::path config = dir / "config.json";
    if (!fs::exists(config)) throw Error("no config.json in " + model_dir + ": not a Hugging Face model folder");
    std::ifstream in(config, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    ModelConfig c = parse_model_config(ss.str(), config.string());
    if (c.quant.method == QuantConfig::Method::None) {
        // Older AutoAWQ checkpoints (e.g. TheBloke/*-AWQ) keep the settings in a side file.
        for (const char* name : {"quant_config.json", "quantize_config.json"}) {
            const fs::path side = dir / name;
            if (fs::exists(side)) {
                parse_awq(parse_json_file(side.string()), side.string(), c.quant, true);
                break;
            }
        }
    }
    return c;
}

int attention_window(const ModelConfig& config) {
    const Architecture* arch = find_architecture(config.architecture);
    if (!arch || !arch->honours_sliding_window || !config.sliding_window) return 0;
    return *config.sliding_window >= config.max_position_embeddings ? 0 : *config.sliding_window;
}

}  // namespace folio
