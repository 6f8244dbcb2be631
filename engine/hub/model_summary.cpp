#include "engine/hub/model_summary.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/model/model_config.h"

namespace folio::hub {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

int int_or(const json& j, const char* key, int fallback = 0) {
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

std::string str_or(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string family_of(const std::string& model_type, const std::string& arch) {
    static const std::map<std::string, std::string> names = {
        {"llama", "Llama"}, {"mistral", "Mistral"}, {"mixtral", "Mixtral"}, {"qwen2", "Qwen2"}, {"qwen3", "Qwen3"},
        {"qwen2_moe", "Qwen2-MoE"}, {"qwen3_moe", "Qwen3-MoE"}, {"gemma", "Gemma"}, {"gemma2", "Gemma 2"},
        {"gemma3", "Gemma 3"}, {"gemma3_text", "Gemma 3"}, {"phi3", "Phi-3"}, {"phi", "Phi"}, {"gpt2", "GPT-2"}};
    if (auto it = names.find(model_type); it != names.end()) return it->second;
    if (!model_type.empty()) return model_type;
    return arch;
}

// The KV shapes and family from config.json as it is, whatever the architecture.
void read_shapes(const json& c, ModelSummary& s) {
    s.model_type = str_or(c, "model_type");
    if (auto a = c.find("architectures"); a != c.end() && a->is_array() && !a->empty() && (*a)[0].is_string())
        s.architecture = (*a)[0].get<std::string>();
    s.family = family_of(s.model_type, s.architecture);
    s.hidden_size = int_or(c, "hidden_size");
    s.intermediate_size = int_or(c, "intermediate_size");
    s.num_layers = int_or(c, "num_hidden_layers");
    s.num_heads = int_or(c, "num_attention_heads");
    s.num_kv_heads = int_or(c, "num_key_value_heads", s.num_heads);
    s.head_dim = int_or(c, "head_dim", s.num_heads > 0 ? s.hidden_size / s.num_heads : 0);
    s.vocab_size = int_or(c, "vocab_size");
    s.max_context = int_or(c, "max_position_embeddings");
}

std::string quant_format(const json& c) {
    auto q = c.find("quantization_config");
    if (q == c.end() || !q->is_object()) return {};
    const std::string method = str_or(*q, "quant_method");
    const int bits = int_or(*q, "bits", int_or(*q, "w_bit", 4));
    const int group = int_or(*q, "group_size", int_or(*q, "q_group_size", 0));
    if (method == "awq") return "AWQ " + std::to_string(bits) + "-bit" + (group > 0 ? " g" + std::to_string(group) : "");
    if (method == "gptq") return "GPTQ " + std::to_string(bits) + "-bit";
    if (method == "fp8") return "FP8";
    if (method == "compressed-tensors") {
        // llm-compressor: the scheme is in config_groups.*.weights (type float/int, num_bits).
        if (auto groups = q->find("config_groups"); groups != q->end() && groups->is_object())
            for (const auto& [name, g] : groups->items())
                if (auto w = g.find("weights"); w != g.end() && w->is_object()) {
                    const int nb = int_or(*w, "num_bits", 0);
                    const std::string type = str_or(*w, "type");
                    if (type == "float" && nb == 8) return "FP8 (compressed-tensors)";
                    if (type == "int") return "INT" + std::to_string(nb) + " (compressed-tensors)";
                }
        return "compressed-tensors";
    }
    if (method == "bitsandbytes") return "bitsandbytes";
    return method;
}

struct HeaderTotals {
    uint64_t bytes = 0, f32_bytes = 0, params = 0;
    std::map<std::string, uint64_t> bytes_by_dtype;  // float weights only, for the format word
};

// Adds one file's tensors: 8 bytes of header length, then the JSON header. Throws folio::Error.
void add_safetensors_header(const fs::path& file, HeaderTotals& t) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error("cannot read " + file.string());
    unsigned char len_bytes[8];
    if (!in.read(reinterpret_cast<char*>(len_bytes), 8)) throw Error(file.string() + ": shorter than a safetensors header");
    uint64_t len = 0;
    for (int i = 7; i >= 0; --i) len = (len << 8) | len_bytes[i];
    if (len > (100ull << 20)) throw Error(file.string() + ": the safetensors header claims " + std::to_string(len) + " bytes");
    std::string header(len, '\0');
    if (!in.read(header.data(), std::streamsize(len))) throw Error(file.string() + ": the safetensors header is cut short");
    json h;
    try {
        h = json::parse(header);
    } catch (const json::exception& e) {
        throw Error(file.string() + ": the safetensors header is not JSON (" + e.what() + ")");
    }
    for (auto it = h.begin(); it != h.end(); ++it) {
        if (it.key() == "__metadata__" || !it->is_object()) continue;
        const std::string dtype = str_or(*it, "dtype");
        const auto off = it->find("data_offsets");
        const auto shape = it->find("shape");
        if (off == it->end() || !off->is_array() || off->size() != 2 || shape == it->end() || !shape->is_array()) continue;
        const uint64_t nbytes = (*off)[1].get<uint64_t>() - (*off)[0].get<uint64_t>();
        uint64_t numel = 1;
        for (const auto& d : *shape) numel *= d.get<uint64_t>();
        t.bytes += nbytes;
        if (dtype == "F32") t.f32_bytes += nbytes;
        const std::string& name = it.key();
        // Quantization side tensors are not parameters; packed 4-bit weights hold 8 per int32.
        if (ends_with(name, ".qzeros") || ends_with(name, ".scales") || ends_with(name, ".g_idx") ||
            ends_with(name, "weight_scale") || ends_with(name, "input_scale") || ends_with(name, "weight_zero_point") ||
            ends_with(name, "weight_shape") || ends_with(name, "weight_scale_inv"))
            continue;
        if ((ends_with(name, ".qweight") || ends_with(name, "weight_packed")) && (dtype == "I32" || dtype == "U32")) {
            t.params += numel * 8;
            continue;
        }
        t.params += numel;
        t.bytes_by_dtype[dtype] += nbytes;
    }
}

// The weight files of a folder as transformers picks them: model.safetensors, else the index's
// shards, else every .safetensors (without Mistral's consolidated copy when other files exist).
std::vector<fs::path> weight_files(const fs::path& dir, std::vector<std::string>& missing, std::string& problem) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::exists(dir / "model.safetensors", ec)) return {dir / "model.safetensors"};
    const fs::path index = dir / "model.safetensors.index.json";
    if (fs::exists(index, ec)) {
        try {
            std::ifstream in(index);
            const json j = json::parse(in);
            std::set<std::string> shards;
            for (auto& [name, file] : j.at("weight_map").items())
                if (file.is_string()) shards.insert(file.get<std::string>());
            for (const auto& s : shards) {
                if (fs::exists(dir / s, ec)) files.push_back(dir / s);
                else missing.push_back(s);
            }
        } catch (const std::exception& e) {
            problem = index.string() + ": cannot read the shard index (" + e.what() + ")";
        }
        return files;
    }
    std::vector<fs::path> model, consolidated;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string n = e.path().filename().string();
        if (!ends_with(n, ".safetensors")) continue;
        (n.rfind("consolidated", 0) == 0 ? consolidated : model).push_back(e.path());
    }
    files = model.empty() ? consolidated : model;
    std::sort(files.begin(), files.end());
    return files;
}

std::string dense_format(const HeaderTotals& t) {
    std::string best;
    uint64_t most = 0;
    for (const auto& [dtype, bytes] : t.bytes_by_dtype)
        if (bytes > most) {
            most = bytes;
            best = dtype;
        }
    if (best == "BF16") return "bf16";
    if (best == "F16") return "fp16";
    if (best == "F32") return "fp32";
    if (best.rfind("F8", 0) == 0) return "FP8";
    return best;
}

}  // namespace

std::string parameters_text(uint64_t p) {
    if (p == 0) return {};
    char buf[32];
    if (p >= 1000000000ull) std::snprintf(buf, sizeof buf, "%.1fB", double(p) / 1e9);
    else if (p >= 1000000ull) std::snprintf(buf, sizeof buf, "%.0fM", double(p) / 1e6);
    else std::snprintf(buf, sizeof buf, "%.0fK", double(p) / 1e3);
    return buf;
}

ModelSummary summarize_config(const json& config, uint64_t weight_bytes) {
    ModelSummary s;
    read_shapes(config, s);
    s.weight_bytes = weight_bytes;
    s.format = quant_format(config);
    try {
        const ModelConfig mc = parse_model_config(config.dump(), "config.json");
        s.sliding_window = attention_window(mc);
    } catch (const Error& e) {
        s.problem = e.what();
    }
    return s;
}

ModelSummary summarize_model(const std::string& dir) {
    ModelSummary s;
    s.dir = dir;
    std::error_code ec;
    const fs::path d(dir);
    if (!fs::exists(d / "config.json", ec)) {
        s.problem = dir + " has no config.json: it is not a Hugging Face transformers checkpoint";
        bool gguf = false;
        for (const auto& e : fs::directory_iterator(d, ec)) gguf = gguf || e.path().extension() == ".gguf";
        if (gguf) s.problem += " (it holds GGUF files, which Folio does not read)";
        s.format = gguf ? "GGUF" : "";
        return s;
    }
    json config;
    try {
        std::ifstream in(d / "config.json");
        config = json::parse(in);
    } catch (const std::exception& e) {
        s.problem = (d / "config.json").string() + ": not valid JSON (" + e.what() + ")";
        return s;
    }
    if (!config.is_object()) {
        s.problem = (d / "config.json").string() + ": not a JSON object";
        return s;
    }
    read_shapes(config, s);
    s.format = quant_format(config);
    try {
        const ModelConfig mc = load_model_config(dir);  // the engine's verdict, side files included
        s.sliding_window = attention_window(mc);
        if (s.format.empty() && mc.quant.method == QuantConfig::Method::Awq)
            s.format = "AWQ " + std::to_string(mc.quant.bits) + "-bit g" + std::to_string(mc.quant.group_size);
    } catch (const Error& e) {
        s.problem = e.what();
    }

    std::string index_problem;
    const auto files = weight_files(d, s.missing_files, index_problem);
    if (!index_problem.empty() && s.problem.empty()) s.problem = index_problem;
    HeaderTotals totals;
    for (const auto& f : files) {
        try {
            add_safetensors_header(f, totals);
        } catch (const Error& e) {
            if (s.problem.empty()) s.problem = e.what();
        }
    }
    s.weight_bytes = totals.bytes;
    s.f32_weight_bytes = totals.f32_bytes;
    s.parameters = totals.params;
    if (s.format.empty()) s.format = dense_format(totals);
    if (files.empty() && s.missing_files.empty() && s.problem.empty())
        s.problem = dir + " has no .safetensors weights (PyTorch .bin and GGUF files are not read)";
    if (!s.missing_files.empty() && s.problem.empty())
        s.problem = std::to_string(s.missing_files.size()) + " weight file(s) named by the index are missing (" +
                    s.missing_files.front() + (s.missing_files.size() > 1 ? ", ..." : "") +
                    "): the download is incomplete; pull it again to finish";
    return s;
}

}  // namespace folio::hub
