#include "engine/model/fp8_config.h"

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/model/compressed_tensors_config.h"

namespace folio {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& what) { throw Error(source + ": " + what); }

std::string method_of(const json& q) {
    return q.is_object() && q.contains("quant_method") && q["quant_method"].is_string() ? q["quant_method"].get<std::string>() : "";
}

// One quantization args object of compressed-tensors ("weights" or "input_activations").
struct Args {
    int num_bits = 0;
    std::string type, strategy;
    bool symmetric = true, dynamic = false;
};

Args read_args(const json& a, const std::string& where, const std::string& source) {
    if (!a.is_object()) fail(source, where + " must be an object");
    Args r;
    if (!a.contains("num_bits") || !a["num_bits"].is_number_integer()) fail(source, where + ".num_bits must be an integer");
    r.num_bits = a["num_bits"].get<int>();
    r.type = a.contains("type") && a["type"].is_string() ? a["type"].get<std::string>() : "int";
    r.strategy = a.contains("strategy") && a["strategy"].is_string() ? a["strategy"].get<std::string>() : "tensor";
    if (a.contains("symmetric") && a["symmetric"].is_boolean()) r.symmetric = a["symmetric"].get<bool>();
    if (a.contains("dynamic") && a["dynamic"].is_boolean()) r.dynamic = a["dynamic"].get<bool>();
    if (r.num_bits != 8 || r.type != "float")
        fail(source, where + " is " + std::to_string(r.num_bits) + "-bit " + r.type +
                         ": Folio runs compressed-tensors FP8 (8-bit float) checkpoints only (its int4/int8 schemes are not supported)");
    if (!r.symmetric) fail(source, where + " is asymmetric: FP8 scales are symmetric; this checkpoint is not supported");
    return r;
}

void parse_autofp8(const json& q, const std::string& source, Fp8Config& c) {
    c.source = Fp8Config::Source::AutoFp8;
    c.weight_scales = Fp8Config::WeightScales::PerTensor;
    const std::string scheme = q.contains("activation_scheme") && q["activation_scheme"].is_string()
                                   ? q["activation_scheme"].get<std::string>()
                                   : "dynamic";
    if (scheme == "dynamic") c.activations = Fp8Config::Activations::DynamicPerTensor;
    else if (scheme == "static") c.activations = Fp8Config::Activations::StaticPerTensor;
    else fail(source, "\"activation_scheme\" is \"" + scheme + "\"; expected \"static\" or \"dynamic\"");
    if (q.contains("weight_block_size") && !q["weight_block_size"].is_null())
        fail(source, "\"weight_block_size\" asks for block-wise FP8 scales (DeepSeek-style), which Folio does not run; "
                     "per-tensor (AutoFP8) and per-channel (compressed-tensors) FP8 checkpoints are supported");
    c.ignored = read_ignore_list(q, "ignored_layers", source);
}

void parse_compressed_tensors(const json& q, const std::string& source, Fp8Config& c) {
    c.source = Fp8Config::Source::CompressedTensors;
    const std::string format = q.contains("format") && q["format"].is_string() ? q["format"].get<std::string>() : "";
    if (format != "float-quantized")
        fail(source, "compressed-tensors format \"" + format +
                         "\" is not supported: Folio runs its FP8 format \"float-quantized\" and int4 \"pack-quantized\" (W4A16)");
    if (!q.contains("config_groups") || !q["config_groups"].is_object() || q["config_groups"].empty())
        fail(source, "\"config_groups\" is missing: a compressed-tensors checkpoint describes its scheme there");
    if (q["config_groups"].size() != 1)
        fail(source, "\"config_groups\" has " + std::to_string(q["config_groups"].size()) +
                         " groups; Folio runs checkpoints with one FP8 scheme for every linear");
    const json& g = q["config_groups"].begin().value();
    const std::string gname = "config_groups." + q["config_groups"].begin().key();
    if (!g.is_object()) fail(source, gname + " must be an object");
    if (g.contains("format") && g["format"].is_string() && g["format"].get<std::string>() != "float-quantized")
        fail(source, gname + ".format is \"" + g["format"].get<std::string>() + "\", not \"float-quantized\"");
    if (g.contains("targets") && g["targets"].is_array()) {
        bool linear = false;
        for (const auto& t : g["targets"]) linear = linear || (t.is_string() && t.get<std::string>() == "Linear");
        if (!linear) fail(source, gname + ".targets must include \"Linear\" (the decoder's projections)");
    }
    if (!g.contains("weights") || g["weights"].is_null()) fail(source, gname + ".weights is missing");
    const Args w = read_args(g["weights"], gname + ".weights", source);
    if (w.dynamic) fail(source, gname + ".weights.dynamic is true: FP8 weights need stored scales");
    if (w.strategy == "tensor") c.weight_scales = Fp8Config::WeightScales::PerTensor;
    else if (w.strategy == "channel") c.weight_scales = Fp8Config::WeightScales::PerChannel;
    else
        fail(source, gname + ".weights.strategy \"" + w.strategy +
                         "\" is not supported (\"tensor\" or \"channel\"; group and block scales are not)");
    if (!g.contains("input_activations") || g["input_activations"].is_null()) {
        c.activations = Fp8Config::Activations::WeightOnly;
    } else {
        const Args a = read_args(g["input_activations"], gname + ".input_activations", source);
        if (!a.dynamic && a.strategy == "tensor") c.activations = Fp8Config::Activations::StaticPerTensor;
        else if (a.dynamic && a.strategy == "token") c.activations = Fp8Config::Activations::DynamicPerToken;
        else if (a.dynamic && a.strategy == "tensor") c.activations = Fp8Config::Activations::DynamicPerTensor;
        else
            fail(source, gname + ".input_activations (" + std::string(a.dynamic ? "dynamic" : "static") + ", strategy \"" + a.strategy +
                             "\") is not supported: static per tensor or dynamic per token/tensor");
    }
    c.ignored = read_ignore_list(q, "ignore", source);
    c.kv_cache_scheme = false;
    if (q.contains("kv_cache_scheme") && !q["kv_cache_scheme"].is_null()) {
        const Args kv = read_args(q["kv_cache_scheme"], "kv_cache_scheme", source);
        if (kv.dynamic || kv.strategy != "tensor")
            fail(source, "kv_cache_scheme must be static per tensor (one k_scale and v_scale per layer)");
        c.kv_cache_scheme = true;
    }
}

}  // namespace

bool is_fp8_quant_method(const json& q) {
    const std::string m = method_of(q);
    return m == "fp8" || m == "compressed-tensors";
}

void parse_fp8_quant(const json& q, const std::string& source, QuantConfig& out) {
    if (!q.is_object()) fail(source, "quantization settings are not a JSON object");
    out = QuantConfig{};
    out.method = QuantConfig::Method::Fp8;
    if (method_of(q) == "fp8") parse_autofp8(q, source, out.fp8);
    else parse_compressed_tensors(q, source, out.fp8);
}

bool fp8_ignored(const Fp8Config& c, const std::string& module) { return module_ignored(c.ignored, module); }

}  // namespace folio
