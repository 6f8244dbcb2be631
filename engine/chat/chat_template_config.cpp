#include "engine/chat/chat_template_config.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"

namespace folio {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

json parse_json(const std::string& text, const std::string& source) {
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        throw Error(source + " is not valid JSON: " + e.what());
    }
}

// A token as tokenizer_config.json writes it: "<s>", {"content": "<s>", ...} or null.
std::optional<std::string> token_field(const json& cfg, const char* key, const std::string& source) {
    auto it = cfg.find(key);
    if (it == cfg.end() || it->is_null()) return std::nullopt;
    if (it->is_string()) return it->get<std::string>();
    if (it->is_object()) {
        auto c = it->find("content");
        if (c != it->end() && c->is_string()) return c->get<std::string>();
    }
    throw Error(source + ": \"" + key + "\" must be a string, an object with a \"content\" string, or null");
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

void parse_tokenizer_config_json(const std::string& text, const std::string& source, ChatTemplateConfig& out) {
    const json cfg = parse_json(text, source);
    if (!cfg.is_object()) throw Error(source + " must hold a JSON object");
    if (auto it = cfg.find("chat_template"); it != cfg.end() && !it->is_null()) {
        if (it->is_string()) {
            out.chat_template = it->get<std::string>();
        } else if (it->is_array()) {
            for (const auto& entry : *it) {
                if (entry.is_object() && entry.value("name", "") == "default" && entry.contains("template") &&
                    entry["template"].is_string())
                    out.chat_template = entry["template"].get<std::string>();
            }
            if (!out.chat_template)
                throw Error(source + ": chat_template lists several named templates but none is named \"default\"");
        } else {
            throw Error(source + ": chat_template must be a string or a list of {\"name\", \"template\"} objects");
        }
        out.chat_template_origin = "tokenizer_config.json";
    }
    out.bos_token = token_field(cfg, "bos_token", source);
    out.eos_token = token_field(cfg, "eos_token", source);
    auto add = [&](const std::string& t) {
        for (const auto& s : out.special_tokens)
            if (s == t) return;
        out.special_tokens.push_back(t);
    };
    for (const char* key : {"bos_token", "eos_token", "unk_token", "pad_token"})
        if (auto t = token_field(cfg, key, source)) add(*t);
    if (auto it = cfg.find("added_tokens_decoder"); it != cfg.end() && it->is_object()) {
        for (const auto& [id, token] : it->items())
            if (token.is_object() && token.contains("content") && token["content"].is_string())
                add(token["content"].get<std::string>());
    }
    if (auto it = cfg.find("additional_special_tokens"); it != cfg.end() && it->is_array()) {
        for (const auto& token : *it) {
            if (token.is_string()) add(token.get<std::string>());
            else if (token.is_object() && token.contains("content") && token["content"].is_string())
                add(token["content"].get<std::string>());
        }
    }
}

void parse_model_config_json(const std::string& text, const std::string& source, ChatTemplateConfig& out) {
    const json cfg = parse_json(text, source);
    if (!cfg.is_object()) throw Error(source + " must hold a JSON object");
    if (auto it = cfg.find("model_type"); it != cfg.end() && it->is_string()) out.model_type = it->get<std::string>();
    if (auto it = cfg.find("vocab_size"); it != cfg.end() && it->is_number_integer()) out.vocab_size = it->get<int>();
}

ChatTemplateConfig read_chat_template_config(const std::string& model_dir) {
    const fs::path dir(model_dir);
    if (!fs::is_directory(dir)) throw Error("model folder " + model_dir + " does not exist");
    const fs::path tokenizer_config = dir / "tokenizer_config.json";
    if (!fs::exists(tokenizer_config))
        throw Error(model_dir + " has no tokenizer_config.json (it holds the chat template and the special tokens)");
    ChatTemplateConfig out;
    parse_tokenizer_config_json(read_text(tokenizer_config), tokenizer_config.string(), out);
    const fs::path jinja_file = dir / "chat_template.jinja";
    if (fs::exists(jinja_file)) {
        out.chat_template = read_text(jinja_file);
        out.chat_template_origin = "chat_template.jinja";
    }
    const fs::path config = dir / "config.json";
    if (fs::exists(config)) parse_model_config_json(read_text(config), config.string(), out);
    return out;
}

}  // namespace folio
