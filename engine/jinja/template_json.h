#pragma once
// JSON in and out of template values: the render context arrives as JSON (object key order kept), and
// `tojson` is transformers' override, i.e. Python's json.dumps(x, ensure_ascii=False, indent=...,
// separators=..., sort_keys=...): ", " and ": " separators, non-ASCII kept as is, NaN/Infinity.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/jinja/template_value.h"

namespace folio::jinja {

// Throws Fault (LimitExceeded) for JSON nested deeper than kMaxValueDepth.
Value value_from_json(const nlohmann::ordered_json& j);

struct JsonDumpOptions {
    bool ensure_ascii = false;
    std::optional<std::string> indent;  // nullopt: everything on one line
    std::optional<std::string> item_separator, key_separator;  // defaults depend on indent, as in Python
    bool sort_keys = false;
};

// json.dumps(v): TypeError for values JSON cannot represent ("Object of type Undefined is not JSON
// serializable"), LimitExceeded past `limit` bytes.
std::string dump_json(const Value& v, const JsonDumpOptions& options, size_t limit);

}  // namespace folio::jinja
