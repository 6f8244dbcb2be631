#include "engine/jinja/template_json.h"

#include <cmath>

#include "engine/jinja/python_ops.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/python_text.h"

namespace folio::jinja {

namespace {

Value from_json(const nlohmann::ordered_json& j, int depth) {
    if (depth > kMaxValueDepth)
        throw Fault(FaultKind::LimitExceeded, "JSON nested more than " + std::to_string(kMaxValueDepth) + " levels deep");
    using T = nlohmann::ordered_json::value_t;
    switch (j.type()) {
    case T::null: return Value::none();
    case T::boolean: return Value::boolean(j.get<bool>());
    case T::number_integer: return Value::integer(j.get<int64_t>());
    case T::number_unsigned: {
        const uint64_t u = j.get<uint64_t>();
        return u <= uint64_t(INT64_MAX) ? Value::integer(int64_t(u)) : Value::number(double(u));
    }
    case T::number_float: return Value::number(j.get<double>());
    case T::string: return Value::string(j.get_ref<const std::string&>());
    case T::array: {
        std::vector<Value> items;
        items.reserve(j.size());
        for (const auto& e : j) items.push_back(from_json(e, depth + 1));
        return Value::list(std::move(items));
    }
    case T::object: {
        std::vector<std::pair<Value, Value>> items;
        items.reserve(j.size());
        for (const auto& [k, v] : j.items()) items.emplace_back(Value::string(k), from_json(v, depth + 1));
        return Value::dict(std::move(items));
    }
    case T::binary:
    case T::discarded: break;
    }
    throw_type_error("binary JSON values are not supported");
}

void append_json_string(std::string& out, std::string_view s, bool ensure_ascii) {
    static const char* hex = "0123456789abcdef";
    auto u4 = [&](unsigned c) {
        out += "\\u";
        for (int k = 12; k >= 0; k -= 4) out += hex[(c >> k) & 15];
    };
    out += '"';
    for (size_t i = 0; i < s.size();) {
        const size_t at = i;
        const char32_t c = next_code_point(s, i);
        switch (c) {
        case '"': out += "\\\""; continue;
        case '\\': out += "\\\\"; continue;
        case '\n': out += "\\n"; continue;
        case '\r': out += "\\r"; continue;
        case '\t': out += "\\t"; continue;
        case '\b': out += "\\b"; continue;
        case '\f': out += "\\f"; continue;
        default: break;
        }
        if (c < 0x20) {
            u4(c);
        } else if (ensure_ascii && (c < 0x20 || c > 0x7E)) {
            if (c >= 0x10000) {
                const char32_t v = c - 0x10000;
                u4(0xD800 + (v >> 10));
                u4(0xDC00 + (v & 0x3FF));
            } else {
                u4(c);
            }
        } else {
            out.append(s.substr(at, i - at));
        }
    }
    out += '"';
}

struct Dumper {
    const JsonDumpOptions& opt;
    size_t limit;
    std::string item_sep, key_sep;

    void newline(std::string& out, int level) const {
        out += '\n';
        for (int k = 0; k < level; ++k) out += *opt.indent;
    }

    std::string key_text(const Value& k) const {
        switch (k.kind()) {
        case Value::Kind::String: return k.str();
        case Value::Kind::Float: {
            const double d = k.as_float();
            if (std::isnan(d)) return "NaN";
            if (std::isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
            return float_repr(d);
        }
        case Value::Kind::Bool: return k.as_bool() ? "true" : "false";
        case Value::Kind::None: return "null";
        case Value::Kind::Int: return std::to_string(k.as_int());
        default: throw_type_error("keys must be str, int, float, bool or None, not " + type_name(k));
        }
    }

    void dump(std::string& out, const Value& v, int level) const {
        check_text_size(out.size(), limit);
        switch (v.kind()) {
        case Value::Kind::None: out += "null"; return;
        case Value::Kind::Bool: out += v.as_bool() ? "true" : "false"; return;
        case Value::Kind::Int: out += std::to_string(v.as_int()); return;
        case Value::Kind::Float: {
            const double d = v.as_float();
            if (std::isnan(d)) out += "NaN";
            else if (std::isinf(d)) out += d < 0 ? "-Infinity" : "Infinity";
            else out += float_repr(d);
            return;
        }
        case Value::Kind::String: append_json_string(out, v.str(), opt.ensure_ascii); return;
        case Value::Kind::Seq: {
            const SeqKind kind = v.seq_kind();
            if (kind != SeqKind::List && kind != SeqKind::Tuple && kind != SeqKind::GroupTuple) break;
            const auto& items = v.items();
            if (items.empty()) {
                out += "[]";
                return;
            }
            out += '[';
            for (size_t i = 0; i < items.size(); ++i) {
                if (i) out += item_sep;
                if (opt.indent) newline(out, level + 1);
                dump(out, items[i], level + 1);
            }
            if (opt.indent) newline(out, level);
            out += ']';
            return;
        }
        case Value::Kind::Dict: {
            const auto& items = v.dict().items;
            if (items.empty()) {
                out += "{}";
                return;
            }
            std::vector<const std::pair<Value, Value>*> order;
            for (const auto& kv : items) order.push_back(&kv);
            if (opt.sort_keys) {
                // Python's sorted(): stable, `<` only, TypeError on mixed key types.
                std::stable_sort(order.begin(), order.end(),
                                 [](const auto* a, const auto* b) { return py_less(a->first, b->first); });
            }
            out += '{';
            bool first = true;
            for (const auto* kv : order) {
                if (!first) out += item_sep;
                first = false;
                if (opt.indent) newline(out, level + 1);
                append_json_string(out, key_text(kv->first), opt.ensure_ascii);
                out += key_sep;
                dump(out, kv->second, level + 1);
            }
            if (opt.indent) newline(out, level);
            out += '}';
            return;
        }
        default: break;
        }
        throw_type_error("Object of type " + type_name(v) + " is not JSON serializable");
    }
};

}  // namespace

Value value_from_json(const nlohmann::ordered_json& j) { return from_json(j, 0); }

std::string dump_json(const Value& v, const JsonDumpOptions& options, size_t limit) {
    Dumper d{options, limit, options.item_separator.value_or(options.indent ? "," : ", "),
             options.key_separator.value_or(": ")};
    std::string out;
    d.dump(out, v, 0);
    check_text_size(out.size(), limit);
    return out;
}

}  // namespace folio::jinja
