#include "engine/model/model.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/error.h"
#include "engine/model/checkpoint.h"
#include "engine/model/dummy_model.h"
#include "engine/model/fp8_quantize.h"
#include "engine/model/weights_loader.h"
#include "engine/tokenizer/tokenizer_loader.h"

namespace folio {

namespace fs = std::filesystem;

std::vector<int> Model::stop_token_ids() const {
    std::vector<int> ids = config.eos_token_ids;
    ids.insert(ids.end(), generation.eos_token_ids.begin(), generation.eos_token_ids.end());
    if (tokenizer && tokenizer->eos_id() >= 0) ids.push_back(tokenizer->eos_id());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

std::string Model::quantization_name() const {
    if (config.quant.method == QuantConfig::Method::Awq && config.quant.pack_quantized)
        return "ct-int4-g" + std::to_string(config.quant.group_size) + (config.quant.zero_point ? "-zp" : "-sym");
    if (config.quant.method == QuantConfig::Method::Awq) return "awq-int4-g" + std::to_string(config.quant.group_size);
    if (config.quant.method == QuantConfig::Method::Fp8) {
        const Fp8Config& f = config.quant.fp8;
        if (f.source == Fp8Config::Source::AtLoad) return "fp8-e4m3-channel (at load)";
        return std::string("fp8-e4m3-") + (f.weight_scales == Fp8Config::WeightScales::PerChannel ? "channel" : "tensor");
    }
    // A float model is named by the dtype its linears are stored in: config.json's torch_dtype is only
    // what the checkpoint was saved from (a "float32" config over fp16 tensors is common).
    DType stored = config.torch_dtype;
    if (!weights.layers.empty() && weights.layers[0].q_proj.kind == Linear::Kind::Dense && weights.layers[0].q_proj.dense.data)
        stored = weights.layers[0].q_proj.dense.dtype;
    switch (stored) {
        case DType::F32: return "fp32";
        case DType::BF16: return "bf16";
        default: return "fp16";
    }
}

namespace {

GenerationDefaults load_generation_defaults(const std::string& dir) {
    GenerationDefaults g;
    const fs::path path = fs::path(dir) / "generation_config.json";
    if (!fs::exists(path)) return g;
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(ss.str());
    } catch (const nlohmann::json::exception& e) {
        throw Error(path.string() + ": not valid JSON: " + e.what());
    }
    if (!j.is_object()) throw Error(path.string() + ": not a JSON object");
    const auto number = [&](const char* key) -> std::optional<float> {
        if (!j.contains(key) || j[key].is_null()) return std::nullopt;
        if (!j[key].is_number()) throw Error(path.string() + ": \"" + key + "\" must be a number");
        return j[key].get<float>();
    };
    if (j.contains("eos_token_id") && !j["eos_token_id"].is_null()) {
        const auto& e = j["eos_token_id"];
        if (e.is_number_integer()) g.eos_token_ids.push_back(e.get<int>());
        else if (e.is_array()) {
            for (const auto& x : e) {
                if (!x.is_number_integer()) throw Error(path.string() + ": \"eos_token_id\" must be an integer or a list of integers");
                g.eos_token_ids.push_back(x.get<int>());
            }
        } else {
            throw Error(path.string() + ": \"eos_token_id\" must be an integer or a list of integers");
        }
    }
    if (j.contains("do_sample") && j["do_sample"].is_boolean()) g.do_sample = j["do_sample"].get<bool>();
    g.temperature = number("temperature");
    g.top_p = number("top_p");
    g.repetition_penalty = number("repetition_penalty");
    if (auto k = number("top_k")) g.top_k = int(*k);
    return g;
}

std::unique_ptr<Model> load_dummy(const std::string& spec, const LoadOptions& options) {
    auto m = std::make_unique<Model>();
    m->spec = spec;
    m->name = spec;
    m->config = dummy_config(spec.substr(6));
    if (!options.tokenizer_path.empty()) {
        m->tokenizer = load_tokenizer(options.tokenizer_path);
        m->config.vocab_size = m->tokenizer->vocab_size();
        m->config.decodable_vocab = m->config.vocab_size;
        const fs::path p(options.tokenizer_path);
        if (fs::is_directory(p)) m->tokenizer_config = load_tokenizer_config(p.string());
    } else {
        m->tokenizer = make_byte_tokenizer(m->config.vocab_size);
    }
    m->tokenizer_config.model_max_length = m->config.max_position_embeddings;
    m->weights = dummy_weights(m->config, options.seed, options.progress);
    return m;
}

uint64_t peak_rss_bytes() {
    std::ifstream in("/proc/self/status");
    std::string key;
    while (in >> key) {
        if (key == "VmHWM:") {
            uint64_t kb = 0;
            in >> kb;
            return kb * 1024;
        }
        in.ignore(1 << 20, '\n');
    }
    return 0;
}

std::unique_ptr<Model> load_as_stored(const std::string& spec, const LoadOptions& options);

}  // namespace

std::string model_display_name(const std::string& dir) {
    fs::path p = fs::path(dir).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();  // a trailing slash
    const fs::path parent = p.parent_path();
    const std::string repo = parent.parent_path().filename().string();
    if (parent.filename() == "snapshots" && repo.rfind("models--", 0) == 0 && repo.size() > 8) {
        std::string id = repo.substr(8);
        // (Built anew rather than with replace(): GCC 12 warns falsely (-Wrestrict) on replace there.)
        if (const auto sep = id.find("--"); sep != std::string::npos) id = id.substr(0, sep) + "/" + id.substr(sep + 2);
        return id;
    }
    return p.filename().string();
}

std::unique_ptr<Model> load_model(const std::string& spec, const LoadOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool fp8 = parse_load_quantization(options.quantization);
    auto m = load_as_stored(spec, options);
    if (fp8) {
        report(options.progress, "quantizing weights to FP8");
        const Fp8QuantizeStats q = quantize_fp8_at_load(*m);
        m->load_stats.quantize_seconds = q.seconds;
        m->load_stats.quantized_bytes_before = q.bytes_before;
        m->load_stats.quantized_bytes_after = q.bytes_after;
    }
    m->load_stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m->load_stats.peak_rss_bytes = peak_rss_bytes();
    return m;
}

namespace {

std::unique_ptr<Model> load_as_stored(const std::string& spec, const LoadOptions& options) {
    if (spec.rfind("dummy:", 0) == 0) return load_dummy(spec, options);
    auto m = std::make_unique<Model>();
    report(options.progress, "reading config");
    m->spec = spec;
    m->name = model_display_name(spec);
    m->config = load_model_config(spec);
    if (!fs::exists(fs::path(spec) / "tokenizer.model") && !fs::exists(fs::path(spec) / "tokenizer.json"))
        throw Error("no tokenizer.json or tokenizer.model in " + spec +
                    ": a model folder needs its tokenizer (Hugging Face tokenizer.json or sentencepiece tokenizer.model)");
    m->tokenizer = load_tokenizer(spec);  // tokenizer.json first, as transformers
    if (m->tokenizer->vocab_size() > m->config.vocab_size)
        throw Error(spec + ": the tokenizer has " + std::to_string(m->tokenizer->vocab_size()) + " tokens but config.json's vocab_size is " +
                    std::to_string(m->config.vocab_size) + ": the tokenizer does not belong to this model");
    m->config.decodable_vocab = m->tokenizer->vocab_size();  // rows past it are padding, never sampled
    m->tokenizer_config = load_tokenizer_config(spec);
    m->generation = load_generation_defaults(spec);
    report(options.progress, "opening the checkpoint");
    Checkpoint checkpoint(spec);
    m->weights = load_weights(checkpoint, m->config, options.progress);
    return m;
}

}  // namespace

}  // namespace folio
