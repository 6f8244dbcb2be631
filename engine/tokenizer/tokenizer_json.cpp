#include "engine/tokenizer/tokenizer_json.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/tokenizer/tokenizer_json_fields.h"

namespace folio {
namespace {

using namespace tokenizer_json;
namespace fs = std::filesystem;

std::string read_file_text(const fs::path& file, const char* what) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(std::string("cannot read ") + what + " " + file.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

json parse_json_text(const std::string& text) {
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        throw Error(std::string("is not valid JSON (") + e.what() + ")");
    }
}

std::unique_ptr<BpeModel> parse_model(const json& m, bool byte_level) {
    const std::string where = "model";
    object_at(m, where);
    if (const auto type = optional_string(m, "type", where); type && *type != "BPE")
        fail(sub(where, "type"), "model type \"" + *type + "\" is not supported (Folio reads BPE models)");
    if (const json* d = find(m, "dropout"); d && !(d->is_number() && d->get<double>() == 0.0))
        fail(sub(where, "dropout"), "BPE dropout " + d->dump() +
                                        " is not supported: Folio encodes deterministically (dropout is for training; "
                                        "set it to null)");
    BpeOptions options;
    options.unk_token = optional_string(m, "unk_token", where);
    options.continuing_subword_prefix = optional_string(m, "continuing_subword_prefix", where).value_or("");
    options.end_of_word_suffix = optional_string(m, "end_of_word_suffix", where).value_or("");
    options.fuse_unk = bool_field(m, "fuse_unk", false, where);
    options.byte_fallback = bool_field(m, "byte_fallback", false, where);
    options.ignore_merges = bool_field(m, "ignore_merges", false, where);
    options.byte_level = byte_level;

    const json& vocab_json = require(m, "vocab", where);
    if (!vocab_json.is_object()) fail(sub(where, "vocab"), "must be an object of token: id");
    std::vector<std::pair<std::string, int>> vocab;
    vocab.reserve(vocab_json.size());
    for (const auto& [token, id] : vocab_json.items()) {
        if (!id.is_number_unsigned() || id.get<uint64_t>() > uint64_t(INT32_MAX))
            fail(sub(where, "vocab"), "the id of \"" + token + "\" must be a non-negative integer, got " + id.dump());
        vocab.emplace_back(token, id.get<int>());
    }

    const json& merges_json = array_field(m, "merges", where);
    std::vector<std::pair<std::string, std::string>> merges;
    merges.reserve(merges_json.size());
    for (size_t i = 0; i < merges_json.size(); ++i) {
        const json& e = merges_json[i];
        if (e.is_string()) {
            const std::string& line = e.get_ref<const std::string&>();
            if (line.rfind("#version", 0) == 0) continue;  // a merges.txt header kept in the list
            const size_t space = line.find(' ');
            if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
                fail(at(sub(where, "merges"), i), "must be two tokens separated by one space, got \"" + line + "\"");
            merges.emplace_back(line.substr(0, space), line.substr(space + 1));
        } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
            merges.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
        } else {
            fail(at(sub(where, "merges"), i), "must be \"a b\" or [\"a\", \"b\"], got " + e.dump());
        }
    }
    try {
        return std::make_unique<BpeModel>(vocab, merges, std::move(options));
    } catch (const Error& e) {
        fail(where, e.what());
    }
}

void parse_added_tokens(const json& list, HfTokenizerParts& parts) {
    const std::string where = "added_tokens";
    if (!list.is_array()) fail(where, "must be a list");
    std::vector<AddedTokenEntry> tokens;
    std::vector<std::string> normalized;
    std::vector<std::pair<int, std::string>> seen;
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string w = at(where, i);
        const json& t = object_at(list[i], w);
        AddedTokenEntry e;
        e.content = string_field(t, "content", w);
        e.special = bool_field(t, "special", false, w);
        e.single_word = bool_field(t, "single_word", false, w);
        e.lstrip = bool_field(t, "lstrip", false, w);
        e.rstrip = bool_field(t, "rstrip", false, w);
        e.normalized = bool_field(t, "normalized", !e.special, w);
        const json& id = require(t, "id", w);
        if (!id.is_number_unsigned() || id.get<uint64_t>() > uint64_t(INT32_MAX))
            fail(sub(w, "id"), "must be a non-negative integer, got " + id.dump());
        // As the Rust library: a token the model already has keeps the model's id.
        const int model_id = parts.model->token_to_id(e.content);
        e.id = model_id >= 0 ? model_id : id.get<int>();
        for (const auto& [other_id, other] : seen)
            if (other_id == e.id && other != e.content)
                fail(sub(w, "id"), "id " + std::to_string(e.id) + " is already the added token \"" + other + "\"");
        seen.emplace_back(e.id, e.content);
        std::string form = e.content;
        if (e.normalized && parts.normalizer) parts.normalizer->normalize(form);
        normalized.push_back(std::move(form));
        tokens.push_back(std::move(e));
    }
    parts.added = AddedVocabulary(tokens, normalized);
    parts.added_normalized = std::move(normalized);
}

// A special token in tokenizer_config.json: "<s>", {"content": "<s>", ...} or null.
std::optional<std::string> config_token(const json& cfg, const char* key, const std::string& where) {
    const json* v = find(cfg, key);
    if (!v) return std::nullopt;
    if (v->is_string()) return v->get<std::string>();
    if (v->is_object()) return string_field(*v, "content", sub(where, key));
    fail(sub(where, key), "must be a string, an object with \"content\", or null");
}

int token_id(const HfTokenizerParts& parts, const std::string& token) {
    for (const auto& t : parts.added.tokens())
        if (t.content == token) return t.id;
    return parts.model->token_to_id(token);
}

void apply_config(const json& cfg, HfTokenizerParts& parts) {
    const std::string where = "(top level)";
    object_at(cfg, where);
    parts.clean_up_tokenization_spaces = bool_field(cfg, "clean_up_tokenization_spaces", false, where);
    parts.split_special_tokens = bool_field(cfg, "split_special_tokens", false, where);
    parts.bos_token = config_token(cfg, "bos_token", where);
    parts.eos_token = config_token(cfg, "eos_token", where);

    // transformers' LlamaTokenizerFast and GemmaTokenizerFast rebuild the post-processor from
    // add_bos_token / add_eos_token when they load, whatever tokenizer.json says.
    const std::string cls = optional_string(cfg, "tokenizer_class", where).value_or("");
    static const char* kRebuilt[] = {"LlamaTokenizer", "LlamaTokenizerFast", "CodeLlamaTokenizer",
                                     "CodeLlamaTokenizerFast", "GemmaTokenizer", "GemmaTokenizerFast"};
    if (std::find(std::begin(kRebuilt), std::end(kRebuilt), cls) == std::end(kRebuilt)) return;
    PostProcessor p;
    if (bool_field(cfg, "add_bos_token", true, where)) {
        const int id = parts.bos_token ? token_id(parts, *parts.bos_token) : -1;
        if (id < 0) fail(sub(where, "add_bos_token"), "is true but bos_token names no token of the vocabulary");
        p.before.push_back(id);
    }
    if (bool_field(cfg, "add_eos_token", false, where)) {
        const int id = parts.eos_token ? token_id(parts, *parts.eos_token) : -1;
        if (id < 0) fail(sub(where, "add_eos_token"), "is true but eos_token names no token of the vocabulary");
        p.after.push_back(id);
    }
    parts.post_processor = p;
}

}  // namespace

std::shared_ptr<const HfTokenizer> parse_tokenizer_json(const std::string& tokenizer_json,
                                                        const std::optional<std::string>& config_json,
                                                        const std::string& source, const std::string& config_source) {
    HfTokenizerParts parts;
    parts.source = source;
    try {
        const json j = parse_json_text(tokenizer_json);
        const std::string top = "(top level)";
        object_at(j, top);
        if (const auto v = optional_string(j, "version", top); v && *v != "1.0")
            fail("version", "\"" + *v + "\" is not a tokenizer.json version Folio reads (1.0)");
        bool byte_level = false;
        if (const json* p = find(j, "pre_tokenizer"))
            parts.pre_tokenizer = parse_pre_tokenizer(*p, "pre_tokenizer", byte_level, parts.pieces_byte_mapped);
        if (const json* n = find(j, "normalizer")) parts.normalizer = parse_normalizer(*n, "normalizer");
        const json* model = find(j, "model");
        if (!model) fail(top, "\"model\" is missing (a tokenizer.json holds its BPE vocabulary and merges there)");
        parts.model = parse_model(*model, byte_level);
        if (const json* a = find(j, "added_tokens")) parse_added_tokens(*a, parts);
        if (const json* d = find(j, "decoder")) {
            parts.has_decoder = true;
            parse_decoder(*d, "decoder", parts.decoders);
        }
        if (const json* pp = find(j, "post_processor")) parts.post_processor = parse_post_processor(*pp, "post_processor");
    } catch (const Error& e) {
        throw Error(source + ": " + e.what());
    }
    if (config_json) {
        try {
            apply_config(parse_json_text(*config_json), parts);
        } catch (const Error& e) {
            throw Error(config_source + ": " + e.what());
        }
    }
    return std::make_shared<const HfTokenizer>(std::move(parts));
}

std::shared_ptr<const HfTokenizer> load_tokenizer_json(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) throw Error("tokenizer file " + path + " does not exist");
    const std::string text = read_file_text(path, "tokenizer file");
    const fs::path config = fs::path(path).parent_path() / "tokenizer_config.json";
    std::optional<std::string> config_text;
    if (fs::exists(config, ec)) config_text = read_file_text(config, "tokenizer config");
    return parse_tokenizer_json(text, config_text, path, config.string());
}

}  // namespace folio
