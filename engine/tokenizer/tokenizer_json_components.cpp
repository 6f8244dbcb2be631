// The component sections of tokenizer.json: normalizer, pre_tokenizer, decoder, post_processor.
#include "engine/tokenizer/tokenizer_json_fields.h"
#include "engine/tokenizer/unicode_text.h"

namespace folio::tokenizer_json {
namespace {

[[noreturn]] void unsupported(const std::string& where, const std::string& kind, const std::string& type,
                              const char* supported) {
    fail(where, kind + " type \"" + type + "\" is not supported (Folio reads " + supported + ")");
}

PrependScheme parse_prepend_scheme(const json& obj, const std::string& where) {
    // Older files say add_prefix_space instead; false means "never".
    PrependScheme scheme = PrependScheme::Always;
    if (const auto s = optional_string(obj, "prepend_scheme", where)) {
        if (*s == "always") scheme = PrependScheme::Always;
        else if (*s == "first") scheme = PrependScheme::First;
        else if (*s == "never") scheme = PrependScheme::Never;
        else fail(sub(where, "prepend_scheme"), "must be \"always\", \"first\" or \"never\", got \"" + *s + "\"");
    }
    if (!bool_field(obj, "add_prefix_space", true, where)) {
        if (find(obj, "prepend_scheme") && scheme != PrependScheme::Never)
            fail(where, "add_prefix_space false does not match prepend_scheme");
        scheme = PrependScheme::Never;
    }
    return scheme;
}

SplitBehavior parse_behavior(const json& obj, const std::string& where) {
    const std::string b = string_field(obj, "behavior", where);
    if (b == "Removed") return SplitBehavior::Removed;
    if (b == "Isolated") return SplitBehavior::Isolated;
    if (b == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
    if (b == "MergedWithNext") return SplitBehavior::MergedWithNext;
    if (b == "Contiguous") return SplitBehavior::Contiguous;
    fail(sub(where, "behavior"),
         "must be Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous, got \"" + b + "\"");
}

// Sequence leaves in order, with their JSON paths.
void flatten_pre_tokenizers(const json& v, const std::string& where, std::vector<std::pair<const json*, std::string>>& out) {
    const std::string type = type_of(v, where);
    if (type != "Sequence") {
        out.emplace_back(&v, where);
        return;
    }
    const json& list = array_field(v, "pretokenizers", where);
    for (size_t i = 0; i < list.size(); ++i) flatten_pre_tokenizers(list[i], at(sub(where, "pretokenizers"), i), out);
}

// A template piece: {"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}, or the string form
// "$A" / "<s>" (with an optional ":type_id").
struct TemplatePiece {
    bool is_sequence = false;
    std::string name;  // sequence "A"/"B", or the special token's name
};

TemplatePiece parse_template_piece(const json& v, const std::string& where) {
    if (v.is_string()) {
        std::string s = v.get<std::string>();
        if (const size_t colon = s.rfind(':'); colon != std::string::npos && colon + 1 < s.size() &&
                                                s.find_first_not_of("0123456789", colon + 1) == std::string::npos)
            s.resize(colon);
        if (!s.empty() && s[0] == '$') return {true, s.size() == 1 ? "A" : s.substr(1)};
        return {false, s};
    }
    object_at(v, where);
    if (const json* t = find(v, "SpecialToken")) return {false, string_field(object_at(*t, sub(where, "SpecialToken")), "id", sub(where, "SpecialToken"))};
    if (const json* t = find(v, "Sequence")) return {true, string_field(object_at(*t, sub(where, "Sequence")), "id", sub(where, "Sequence"))};
    fail(where, "must be {\"SpecialToken\": ...} or {\"Sequence\": ...}");
}

PostProcessor parse_template(const json& v, const std::string& where) {
    PostProcessor p;
    const json& single = array_field(v, "single", where);
    const json* specials = find(v, "special_tokens");
    int sequences = 0;
    for (size_t i = 0; i < single.size(); ++i) {
        const std::string w = at(sub(where, "single"), i);
        const TemplatePiece piece = parse_template_piece(single[i], w);
        if (piece.is_sequence) {
            if (piece.name != "A") fail(w, "the single-sequence template can only hold sequence A, not " + piece.name);
            ++sequences;
            continue;
        }
        const json* entry = specials && specials->is_object() ? find(*specials, piece.name.c_str()) : nullptr;
        if (!entry) fail(w, "special token \"" + piece.name + "\" is not in special_tokens");
        const std::string ew = sub(sub(where, "special_tokens"), piece.name);
        const json& ids = array_field(object_at(*entry, ew), "ids", ew);
        std::vector<int>& side = sequences == 0 ? p.before : p.after;
        for (const json& id : ids) {
            if (!id.is_number_unsigned() || id.get<uint64_t>() >= (1u << 24))
                fail(sub(ew, "ids"), "must hold token ids, got " + id.dump());
            side.push_back(id.get<int>());
        }
    }
    if (sequences != 1) fail(sub(where, "single"), "must hold the sequence $A exactly once");
    return p;
}

// BertProcessing / RobertaProcessing: "cls": ["[CLS]", 101], "sep": ["[SEP]", 102].
int token_pair_id(const json& obj, const char* key, const std::string& where) {
    const json& v = require(obj, key, where);
    if (!v.is_array() || v.size() != 2 || !v[1].is_number_unsigned() || v[1].get<uint64_t>() >= (1u << 24))
        fail(sub(where, key), "must be [token, id], got " + v.dump());
    return v[1].get<int>();
}

}  // namespace

char32_t single_char(const std::string& s, const std::string& where) {
    if (s.empty() || unicode::first_invalid_byte(s) != s.size()) fail(where, "must be one character, got \"" + s + "\"");
    size_t len = 0;
    const char32_t c = unicode::decode_at(s, 0, len);
    if (len != s.size()) fail(where, "must be one character, got \"" + s + "\"");
    return c;
}

std::unique_ptr<SplitPattern> parse_pattern(const json& v, const std::string& where) {
    object_at(v, where);
    if (const json* s = find(v, "String")) {
        if (!s->is_string()) fail(sub(where, "String"), "must be a string");
        return make_literal_pattern(s->get<std::string>());
    }
    if (const json* r = find(v, "Regex")) {
        if (!r->is_string()) fail(sub(where, "Regex"), "must be a string");
        try {
            return make_regex_pattern(r->get<std::string>());
        } catch (const Error& e) {
            fail(sub(where, "Regex"), e.what());
        }
    }
    fail(where, "must be {\"String\": ...} or {\"Regex\": ...}, got " + v.dump());
}

std::unique_ptr<Normalizer> parse_normalizer(const json& v, const std::string& where) {
    const std::string type = type_of(v, where);
    if (type == "NFC") return make_unicode_normalizer(UnicodeForm::NFC);
    if (type == "NFD") return make_unicode_normalizer(UnicodeForm::NFD);
    if (type == "NFKC") return make_unicode_normalizer(UnicodeForm::NFKC);
    if (type == "NFKD") return make_unicode_normalizer(UnicodeForm::NFKD);
    if (type == "Lowercase") return make_lowercase();
    if (type == "Strip")
        return make_strip(bool_field(v, "strip_left", true, where), bool_field(v, "strip_right", true, where));
    if (type == "Prepend") return make_prepend(string_field(v, "prepend", where));
    if (type == "Replace")
        return make_replace(parse_pattern(require(v, "pattern", where), sub(where, "pattern")), string_field(v, "content", where));
    if (type == "Sequence") {
        const json& list = array_field(v, "normalizers", where);
        std::vector<std::unique_ptr<Normalizer>> stages;
        for (size_t i = 0; i < list.size(); ++i) stages.push_back(parse_normalizer(list[i], at(sub(where, "normalizers"), i)));
        return make_normalizer_sequence(std::move(stages));
    }
    unsupported(where, "normalizer", type, "NFC, NFD, NFKC, NFKD, Lowercase, Strip, Prepend, Replace, Sequence");
}

std::unique_ptr<PreTokenizer> parse_pre_tokenizer(const json& v, const std::string& where, bool& byte_level, bool& byte_mapped) {
    std::vector<std::pair<const json*, std::string>> leaves;
    flatten_pre_tokenizers(v, where, leaves);
    byte_level = byte_mapped = false;
    std::vector<std::unique_ptr<PreTokenizer>> stages;
    for (size_t i = 0; i < leaves.size(); ++i) {
        const json& p = *leaves[i].first;
        const std::string& w = leaves[i].second;
        const std::string type = type_of(p, w);
        if (type == "Split") {
            stages.push_back(make_split(parse_pattern(require(p, "pattern", w), sub(w, "pattern")), parse_behavior(p, w),
                                        bool_field(p, "invert", false, w)));
        } else if (type == "ByteLevel") {
            if (byte_level) fail(w, "a second ByteLevel pre-tokenizer is not supported");
            byte_level = true;
            byte_mapped = i + 1 < leaves.size();
            const bool prefix = bool_field(p, "add_prefix_space", true, w), regex = bool_field(p, "use_regex", true, w);
            // Last, without prefix or regex, it leaves the pieces as they are (the model reads raw
            // bytes): no stage at all (Llama-3, Qwen).
            if (prefix || regex || byte_mapped) stages.push_back(make_byte_level(prefix, regex, byte_mapped));
        } else if (type == "Metaspace") {
            if (byte_level) fail(w, "a Metaspace pre-tokenizer after ByteLevel is not supported");
            const std::string replacement = string_field(p, "replacement", w);
            single_char(replacement, sub(w, "replacement"));
            stages.push_back(make_metaspace(replacement, parse_prepend_scheme(p, w), bool_field(p, "split", true, w)));
        } else if (type == "Digits") {
            stages.push_back(make_digits(bool_field(p, "individual_digits", false, w)));
        } else {
            unsupported(w, "pre-tokenizer", type, "Split, ByteLevel, Metaspace, Digits, Sequence");
        }
    }
    if (stages.empty()) return nullptr;
    if (stages.size() == 1) return std::move(stages[0]);
    return make_sequence(std::move(stages));
}

void parse_decoder(const json& v, const std::string& where, std::vector<std::unique_ptr<Decoder>>& out) {
    const std::string type = type_of(v, where);
    if (type == "ByteLevel") {
        out.push_back(make_byte_level_decoder());
    } else if (type == "Metaspace") {
        const std::string replacement = string_field(v, "replacement", where);
        single_char(replacement, sub(where, "replacement"));
        out.push_back(make_metaspace_decoder(replacement, parse_prepend_scheme(v, where)));
    } else if (type == "ByteFallback") {
        out.push_back(make_byte_fallback_decoder());
    } else if (type == "Fuse") {
        out.push_back(make_fuse_decoder());
    } else if (type == "Strip") {
        out.push_back(make_strip_decoder(single_char(string_field(v, "content", where), sub(where, "content")),
                                         count_field(v, "start", 0, where), count_field(v, "stop", 0, where)));
    } else if (type == "Replace") {
        out.push_back(make_replace_decoder(parse_pattern(require(v, "pattern", where), sub(where, "pattern")),
                                           string_field(v, "content", where)));
    } else if (type == "Sequence") {
        const json& list = array_field(v, "decoders", where);
        for (size_t i = 0; i < list.size(); ++i) parse_decoder(list[i], at(sub(where, "decoders"), i), out);
    } else {
        unsupported(where, "decoder", type, "ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, Sequence");
    }
}

PostProcessor parse_post_processor(const json& v, const std::string& where) {
    const std::string type = type_of(v, where);
    if (type == "ByteLevel") return {};  // offsets only
    if (type == "TemplateProcessing") return parse_template(v, where);
    if (type == "BertProcessing" || type == "RobertaProcessing") {
        PostProcessor p;
        p.before.push_back(token_pair_id(v, "cls", where));
        p.after.push_back(token_pair_id(v, "sep", where));
        return p;
    }
    if (type == "Sequence") {
        const json& list = array_field(v, "processors", where);
        PostProcessor all;
        for (size_t i = 0; i < list.size(); ++i) all.then(parse_post_processor(list[i], at(sub(where, "processors"), i)));
        return all;
    }
    unsupported(where, "post-processor", type, "TemplateProcessing, ByteLevel, BertProcessing, RobertaProcessing, Sequence");
}

}  // namespace folio::tokenizer_json
