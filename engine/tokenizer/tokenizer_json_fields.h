#pragma once
// Field access for the tokenizer.json reader: every failure names the JSON path ("pre_tokenizer.
// pretokenizers[1].pattern") and what was expected; the loader prefixes the file.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/tokenizer/decoders.h"
#include "engine/tokenizer/normalizers.h"
#include "engine/tokenizer/post_processor.h"
#include "engine/tokenizer/pre_tokenizers.h"
#include "engine/tokenizer/split_pattern.h"

namespace folio::tokenizer_json {

using nlohmann::json;

[[noreturn]] inline void fail(const std::string& where, const std::string& what) { throw Error(where + ": " + what); }

inline std::string sub(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }
inline std::string at(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

// nullptr when absent or null.
inline const json* find(const json& obj, const char* key) {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
}

inline const json& require(const json& obj, const char* key, const std::string& where) {
    const json* v = find(obj, key);
    if (!v) fail(where, std::string("\"") + key + "\" is missing");
    return *v;
}

inline std::string string_field(const json& obj, const char* key, const std::string& where) {
    const json& v = require(obj, key, where);
    if (!v.is_string()) fail(sub(where, key), "must be a string, got " + v.dump());
    return v.get<std::string>();
}

inline std::optional<std::string> optional_string(const json& obj, const char* key, const std::string& where) {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(sub(where, key), "must be a string or null, got " + v->dump());
    return v->get<std::string>();
}

inline bool bool_field(const json& obj, const char* key, bool fallback, const std::string& where) {
    const json* v = find(obj, key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(sub(where, key), "must be true or false, got " + v->dump());
    return v->get<bool>();
}

inline size_t count_field(const json& obj, const char* key, size_t fallback, const std::string& where) {
    const json* v = find(obj, key);
    if (!v) return fallback;
    if (!v->is_number_unsigned()) fail(sub(where, key), "must be a non-negative integer, got " + v->dump());
    return v->get<size_t>();
}

inline const json& object_at(const json& v, const std::string& where) {
    if (!v.is_object()) fail(where, "must be an object, got " + v.dump().substr(0, 80));
    return v;
}

inline const json& array_field(const json& obj, const char* key, const std::string& where) {
    const json& v = require(obj, key, where);
    if (!v.is_array()) fail(sub(where, key), "must be a list, got " + v.dump().substr(0, 80));
    return v;
}

inline std::string type_of(const json& obj, const std::string& where) { return string_field(object_at(obj, where), "type", where); }

// One character given as a string (Metaspace's replacement, Strip's content).
char32_t single_char(const std::string& s, const std::string& where);

// {"String": s} or {"Regex": r}.
std::unique_ptr<SplitPattern> parse_pattern(const json& v, const std::string& where);

std::unique_ptr<Normalizer> parse_normalizer(const json& v, const std::string& where);

// The pre-tokenizer (null for none). `byte_level` / `byte_mapped` receive whether a ByteLevel is in
// it and whether it is not the last stage (its output then is spelled in the byte alphabet).
std::unique_ptr<PreTokenizer> parse_pre_tokenizer(const json& v, const std::string& where, bool& byte_level,
                                                  bool& byte_mapped);

void parse_decoder(const json& v, const std::string& where, std::vector<std::unique_ptr<Decoder>>& out);

PostProcessor parse_post_processor(const json& v, const std::string& where);

}  // namespace folio::tokenizer_json
