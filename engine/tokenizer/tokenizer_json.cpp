#include "engine/tokenizer/tokenizer_json.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <simdjson.h>

#include "engine/tokenizer/tokenizer_json_fields.h"

namespace folio {
namespace {

using namespace tokenizer_json;
namespace fs = std::filesystem;

// Ids index tables of that size: a corrupt file must not make them allocate gigabytes. The largest
// real vocabularies have about 260 000 tokens.
constexpr uint64_t kMaxId = (1u << 24) - 1;

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

// The model section: its small fields as JSON, vocab and merges straight from simdjson's document
// (hundreds of thousands of entries).
std::unique_ptr<BpeModel> parse_model(simdjson::dom::object model, bool byte_level) {
    const std::string where = "model";
    json m = json::object();
    simdjson::dom::element vocab_el, merges_el;
    bool have_vocab = false, have_merges = false;
    for (auto [key, value] : model) {
        if (key == "vocab") {
            vocab_el = value;
            have_vocab = true;
        } else if (key == "merges") {
            merges_el = value;
            have_merges = true;
        } else {
            m[std::string(key)] = json::parse(simdjson::minify(value));
        }
    }
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

    if (!have_vocab || vocab_el.is_null()) fail(where, "\"vocab\" is missing");
    simdjson::dom::object vocab_obj;
    if (vocab_el.get_object().get(vocab_obj)) fail(sub(where, "vocab"), "must be an object of token: id");
    std::vector<std::pair<std::string_view, int>> vocab;
    vocab.reserve(vocab_obj.size());
    for (auto [token, id] : vocab_obj) {
        uint64_t v = 0;
        if (id.get_uint64().get(v) || v > kMaxId)
            fail(sub(where, "vocab"), "the id of \"" + std::string(token) + "\" must be an integer from 0 to " +
                                          std::to_string(kMaxId) + ", got " + simdjson::minify(id));
        vocab.emplace_back(token, int(v));
    }

    if (!have_merges || merges_el.is_null()) fail(where, "\"merges\" is missing");
    simdjson::dom::array merges_arr;
    if (merges_el.get_array().get(merges_arr)) fail(sub(where, "merges"), "must be a list");
    std::vector<std::pair<std::string_view, std::string_view>> merges;
    merges.reserve(merges_arr.size());
    size_t i = 0;
    for (simdjson::dom::element e : merges_arr) {
        std::string_view line;
        simdjson::dom::array pair;
        if (!e.get_string().get(line)) {
            if (line.rfind("#version", 0) != 0) {  // a merges.txt header kept in the list is skipped
                const size_t space = line.find(' ');
                if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos)
                    fail(at(sub(where, "merges"), i),
                         "must be two tokens separated by one space, got \"" + std::string(line) + "\"");
                merges.emplace_back(line.substr(0, space), line.substr(space + 1));
            }
        } else if (!e.get_array().get(pair) && pair.size() == 2 && pair.at(0).is_string() && pair.at(1).is_string()) {
            merges.emplace_back(std::string_view(pair.at(0)), std::string_view(pair.at(1)));
        } else {
            fail(at(sub(where, "merges"), i), "must be \"a b\" or [\"a\", \"b\"], got " + simdjson::minify(e));
        }
        ++i;
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
        if (!id.is_number_unsigned() || id.get<uint64_t>() > kMaxId)
            fail(sub(w, "id"), "must be an integer from 0 to " + std::to_string(kMaxId) + ", got " + id.dump());
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

// The ids the post-processor adds must be tokens (of the model's vocabulary or added): encode's
// ids are promised to lie in the vocabulary, and one that names nothing would reach the model.
void check_post_processor_ids(const HfTokenizerParts& parts) {
    for (const std::vector<int>* side : {&parts.post_processor.before, &parts.post_processor.after})
        for (const int id : *side) {
            bool added = false;
            for (const auto& t : parts.added.tokens()) added = added || t.id == id;
            if (!added && !parts.model->id_to_token(id))
                fail("post_processor", "adds token id " + std::to_string(id) +
                                           ", which is neither in the model's vocabulary nor an added token");
        }
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
        // simdjson reads the document (tokenizer.json runs to 10 MB; nlohmann's tree takes a second);
        // every section but the model's vocab and merges is small and read as nlohmann JSON.
        simdjson::dom::parser parser;
        const simdjson::padded_string padded(tokenizer_json);
        simdjson::dom::element doc;
        if (const auto err = parser.parse(padded).get(doc)) {
            parse_json_text(tokenizer_json);  // throws with a message that says where
            throw Error(std::string("is not valid JSON (") + simdjson::error_message(err) + ")");
        }
        const std::string top = "(top level)";
        simdjson::dom::object root;
        if (doc.get_object().get(root)) fail(top, "must be a JSON object");
        json j = json::object();
        simdjson::dom::object model;
        bool have_model = false;
        for (auto [key, value] : root) {
            if (key == "model" && value.is_object()) {
                model = value.get_object();
                have_model = true;
            } else {
                j[std::string(key)] = json::parse(simdjson::minify(value));
            }
        }
        if (const auto v = optional_string(j, "version", top); v && *v != "1.0")
            fail("version", "\"" + *v + "\" is not a tokenizer.json version Folio reads (1.0)");
        bool byte_level = false;
        if (const json* p = find(j, "pre_tokenizer"))
            parts.pre_tokenizer = parse_pre_tokenizer(*p, "pre_tokenizer", byte_level, parts.pieces_byte_mapped);
        if (const json* n = find(j, "normalizer")) parts.normalizer = parse_normalizer(*n, "normalizer");
        if (!have_model) {
            if (const json* m = find(j, "model")) fail("model", "must be an object, got " + m->dump().substr(0, 80));
            fail(top, "\"model\" is missing (a tokenizer.json holds its BPE vocabulary and merges there)");
        }
        parts.model = parse_model(model, byte_level);
        if (const json* a = find(j, "added_tokens")) parse_added_tokens(*a, parts);
        if (const json* d = find(j, "decoder")) {
            parts.has_decoder = true;
            parse_decoder(*d, "decoder", parts.decoders);
        }
        if (const json* pp = find(j, "post_processor")) {
            parts.post_processor = parse_post_processor(*pp, "post_processor");
            check_post_processor_ids(parts);
        }
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
