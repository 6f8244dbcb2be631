// load_tokenizer_config: tokenizer_config.json, with special_tokens_map.json and
// chat_template.jinja/.json filling what it leaves out, as transformers does.
#include "engine/tokenizer/tokenizer_config.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"

namespace folio {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error("cannot read " + file.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

json parse_json_object(const fs::path& file) {
    json j;
    try {
        j = json::parse(read_text(file));
    } catch (const json::exception& e) {
        throw Error(file.string() + " is not valid JSON (" + e.what() + "); fix or remove the file");
    }
    if (!j.is_object()) throw Error(file.string() + " must hold a JSON object");
    return j;
}

std::string field_error(const fs::path& file, const std::string& field, const std::string& want, const json& got) {
    return file.string() + ": \"" + field + "\" must be " + want + ", got " + got.dump();
}

void read_bool(const json& j, const char* key, bool& out, const fs::path& file) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    if (!it->is_boolean()) throw Error(field_error(file, key, "true or false", *it));
    out = it->get<bool>();
}

// A special token given as "<s>", as {"content": "<s>", ...} (AddedToken), or as null (no such token).
void read_token(const json& j, const char* key, std::string& out, const fs::path& file) {
    auto it = j.find(key);
    if (it == j.end()) return;
    if (it->is_null()) {
        out.clear();
    } else if (it->is_string()) {
        out = it->get<std::string>();
    } else if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) {
        out = (*it)["content"].get<std::string>();
    } else {
        throw Error(field_error(file, key, "a string or an object with a \"content\" string", *it));
    }
}

// A string, or a list of {"name", "template"} of which the "default" one is used.
std::optional<std::string> read_chat_template(const json& value, const fs::path& file) {
    if (value.is_null()) return std::nullopt;
    if (value.is_string()) return value.get<std::string>();
    if (value.is_array()) {
        for (const auto& t : value) {
            if (!t.is_object() || !t.contains("name") || !t.contains("template") || !t["name"].is_string() ||
                !t["template"].is_string())
                throw Error(field_error(file, "chat_template", "a list of {\"name\", \"template\"} strings", t));
            if (t["name"] == "default") return t["template"].get<std::string>();
        }
        return std::nullopt;  // named templates only (e.g. "tool_use"): none to use by default
    }
    throw Error(field_error(file, "chat_template", "a string or a list of named templates", value));
}

int read_max_length(const json& j, const fs::path& file) {
    auto it = j.find("model_max_length");
    if (it == j.end() || it->is_null()) return 0;
    if (!it->is_number()) throw Error(field_error(file, "model_max_length", "a number", *it));
    const double v = it->get<double>();
    // transformers writes int(1e30) when the length is unset; anything beyond int range means "unset".
    if (!(v >= 1) || v > double(std::numeric_limits<int>::max())) return 0;
    return int(v);
}

std::vector<AddedToken> read_added_tokens(const json& j, const fs::path& file) {
    std::vector<AddedToken> out;
    auto it = j.find("added_tokens_decoder");
    if (it == j.end() || it->is_null()) return out;
    if (!it->is_object()) throw Error(field_error(file, "added_tokens_decoder", "an object keyed by token id", *it));
    for (const auto& [key, value] : it->items()) {
        AddedToken t;
        const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), t.id);
        if (ec != std::errc() || end != key.data() + key.size() || t.id < 0)
            throw Error(file.string() + ": added_tokens_decoder key \"" + key + "\" is not a token id");
        if (!value.is_object() || !value.contains("content") || !value["content"].is_string())
            throw Error(field_error(file, "added_tokens_decoder." + key, "an object with a \"content\" string", value));
        t.content = value["content"].get<std::string>();
        read_bool(value, "lstrip", t.lstrip, file);
        read_bool(value, "rstrip", t.rstrip, file);
        read_bool(value, "special", t.special, file);
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace

TokenizerConfig load_tokenizer_config(const std::string& model_dir) {
    TokenizerConfig cfg;
    fs::path dir = model_dir;
    std::error_code ec;
    if (fs::is_regular_file(dir, ec)) dir = dir.parent_path();  // given the tokenizer.model itself

    // special_tokens_map.json first: tokenizer_config.json overrides it where both name a token.
    const fs::path map_file = dir / "special_tokens_map.json";
    if (fs::exists(map_file, ec)) {
        const json m = parse_json_object(map_file);
        read_token(m, "bos_token", cfg.bos_token, map_file);
        read_token(m, "eos_token", cfg.eos_token, map_file);
        read_token(m, "unk_token", cfg.unk_token, map_file);
    }

    const fs::path file = dir / "tokenizer_config.json";
    if (fs::exists(file, ec)) {
        const json j = parse_json_object(file);
        read_bool(j, "add_bos_token", cfg.add_bos_token, file);
        read_bool(j, "add_eos_token", cfg.add_eos_token, file);
        read_token(j, "bos_token", cfg.bos_token, file);
        read_token(j, "eos_token", cfg.eos_token, file);
        read_token(j, "unk_token", cfg.unk_token, file);
        if (auto it = j.find("chat_template"); it != j.end()) cfg.chat_template = read_chat_template(*it, file);
        cfg.model_max_length = read_max_length(j, file);
        read_bool(j, "legacy", cfg.legacy, file);
        read_bool(j, "add_prefix_space", cfg.add_prefix_space, file);
        cfg.added_tokens = read_added_tokens(j, file);
    }

    // Newer transformers save the template beside the config.
    if (!cfg.chat_template) {
        const fs::path jinja = dir / "chat_template.jinja", tj = dir / "chat_template.json";
        if (fs::exists(jinja, ec)) {
            cfg.chat_template = read_text(jinja);
        } else if (fs::exists(tj, ec)) {
            const json j = parse_json_object(tj);
            if (auto it = j.find("chat_template"); it != j.end()) cfg.chat_template = read_chat_template(*it, tj);
        }
    }
    return cfg;
}

}  // namespace folio
