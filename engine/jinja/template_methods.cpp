#include "engine/jinja/template_methods.h"

#include <algorithm>
#include <set>

#include "engine/jinja/python_format.h"
#include "engine/jinja/python_ops.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/python_text.h"
#include "engine/jinja/template_call_args.h"
#include "engine/jinja/template_objects.h"
#include "engine/jinja/template_renderer.h"

namespace folio::jinja {

namespace {

const std::set<std::string>& str_methods() {
    static const std::set<std::string> names{
        "capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find", "format",
        "format_map", "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
        "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip", "maketrans",
        "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit",
        "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title", "translate", "upper", "zfill"};
    return names;
}

Value unsafe(const Value& obj, const std::string& name) {
    return Value::undefined("access to attribute '" + name + "' of '" + type_name(obj) + "' object is unsafe.",
                            FaultKind::SecurityError);
}

Value method(const Value& obj, const std::string& name) {
    return Value::object(std::make_shared<BoundMethod>(obj, name));
}

bool one_of(const std::string& name, std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (name == n) return true;
    return false;
}

std::optional<Value> find_attribute(Renderer& r, const Value& obj, const std::string& name) {
    switch (obj.kind()) {
    case Value::Kind::String:
        if (str_methods().count(name)) return method(obj, name);
        return std::nullopt;
    case Value::Kind::Dict:
        if (one_of(name, {"items", "keys", "values", "get", "copy", "fromkeys"})) return method(obj, name);
        if (one_of(name, {"clear", "pop", "popitem", "setdefault", "update"})) return unsafe(obj, name);
        return std::nullopt;
    case Value::Kind::Seq:
        switch (obj.seq_kind()) {
        case SeqKind::List:
            if (one_of(name, {"copy", "count", "index"})) return method(obj, name);
            if (one_of(name, {"append", "clear", "extend", "insert", "pop", "remove", "reverse", "sort"}))
                return unsafe(obj, name);
            return std::nullopt;
        case SeqKind::GroupTuple:
            if (name == "grouper") return obj.items()[0];
            if (name == "list") return obj.items()[1];
            [[fallthrough]];
        case SeqKind::Tuple:
            if (one_of(name, {"count", "index"})) return method(obj, name);
            return std::nullopt;
        case SeqKind::Range:
            if (one_of(name, {"count", "index"})) return method(obj, name);
            if (name == "start") return Value::integer(obj.seq().range_start);
            if (name == "stop") return Value::integer(obj.seq().range_stop);
            if (name == "step") return Value::integer(obj.seq().range_step);
            return std::nullopt;
        default: return std::nullopt;
        }
    case Value::Kind::Bool:
    case Value::Kind::Int:
        if (name == "real" || name == "numerator") return Value::integer(obj.as_int());
        if (name == "imag") return Value::integer(0);
        if (name == "denominator") return Value::integer(1);
        if (one_of(name, {"bit_length", "conjugate"})) return method(obj, name);
        return std::nullopt;
    case Value::Kind::Float:
        if (name == "real") return obj;
        if (name == "imag") return Value::number(0.0);
        if (one_of(name, {"is_integer", "conjugate"})) return method(obj, name);
        return std::nullopt;
    case Value::Kind::Object: return obj.obj()->attribute(r, name);
    default: return std::nullopt;
    }
}

void no_keywords(const CallArgs& args, const std::string& type, const std::string& name) {
    if (!args.keywords.empty()) throw_type_error(type + "." + name + "() takes no keyword arguments");
}

void arity(const CallArgs& args, const std::string& name, size_t lo, size_t hi) {
    const size_t n = args.positional.size();
    if (n < lo || n > hi) {
        if (lo == hi)
            throw_type_error(name + "() takes exactly " + std::to_string(lo) + " argument" + (lo == 1 ? "" : "s") + " (" +
                             std::to_string(n) + " given)");
        throw_type_error(name + "() takes " + (n < lo ? "at least " + std::to_string(lo) : "at most " + std::to_string(hi)) +
                         " argument" + ((n < lo ? lo : hi) == 1 ? "" : "s") + " (" + std::to_string(n) + " given)");
    }
}

std::optional<int64_t> opt_index(const CallArgs& a, size_t i) {
    if (i >= a.positional.size() || a.positional[i].is_none()) return std::nullopt;
    return int_arg(a.positional[i], "slice index");
}

std::optional<std::string> opt_chars(const CallArgs& a, const std::string& name) {
    if (a.positional.empty() || a.positional[0].is_none()) return std::nullopt;
    if (!a.positional[0].is_string()) throw_type_error(name + " arg must be None or str");
    return a.positional[0].str();
}

Value string_list(std::vector<std::string> parts) {
    std::vector<Value> items;
    items.reserve(parts.size());
    for (auto& p : parts) items.push_back(Value::string(std::move(p)));
    return Value::list(std::move(items));
}

bool affix_match(const std::string& s, const Value& affix, const CallArgs& a, bool prefix, const std::string& name) {
    std::string window = s;
    if (a.positional.size() > 1) window = py_substr(s, opt_index(a, 1), opt_index(a, 2));
    auto test = [&](const std::string& x) {
        if (x.size() > window.size()) return false;
        return prefix ? window.compare(0, x.size(), x) == 0 : window.compare(window.size() - x.size(), x.size(), x) == 0;
    };
    if (affix.is_string()) return test(affix.str());
    if (affix.is_seq() && (affix.seq_kind() == SeqKind::Tuple || affix.seq_kind() == SeqKind::GroupTuple)) {
        for (const Value& x : affix.items()) {
            if (!x.is_string())
                throw_type_error("tuple for " + name + " must only contain str, not " + type_name(x));
            if (test(x.str())) return true;
        }
        return false;
    }
    throw_type_error(name + " first arg must be str or a tuple of str, not " + type_name(affix));
}

bool is_identifier(const std::string& s) {
    if (s.empty()) return false;
    bool first = true;
    for (size_t i = 0; i < s.size();) {
        const char32_t c = next_code_point(s, i);
        const bool ok = c == '_' || py_isalpha(c) || (!first && (py_isdecimal(c) || py_isdigit(c)));
        if (!ok) return false;
        first = false;
    }
    return true;
}

Value str_method(Renderer& r, const std::string& s, const std::string& name, CallArgs& a) {
    const size_t limit = r.text_limit();
    if (name == "split" || name == "rsplit") {
        auto b = bind_args(a, name.c_str(), {"sep", "maxsplit"});
        std::optional<std::string> sep;
        if (b[0] && !b[0]->is_none()) {
            if (!b[0]->is_string()) throw_type_error("must be str or None, not " + type_name(*b[0]));
            sep = b[0]->str();
            if (sep->empty()) throw_value_error("empty separator");
        }
        const int64_t maxsplit = b[1] ? int_arg(*b[1], "maxsplit") : -1;
        r.charge(s.size() / 64);
        return string_list(name == "split" ? py_split(s, sep, maxsplit) : py_rsplit(s, sep, maxsplit));
    }
    if (name == "splitlines") {
        auto b = bind_args(a, name.c_str(), {"keepends"});
        return string_list(py_splitlines(s, b[0] && truthy(*b[0])));
    }
    if (name == "expandtabs") {
        auto b = bind_args(a, name.c_str(), {"tabsize"});
        const int64_t tab = b[0] ? int_arg(*b[0], "tabsize") : 8;
        std::string out;
        int64_t col = 0;
        for (size_t i = 0; i < s.size();) {
            const char32_t c = next_code_point(s, i);
            if (c == '\t') {
                if (tab > 0) {
                    const int64_t n = tab - col % tab;
                    check_text_size(out.size() + size_t(n), limit);
                    out.append(size_t(n), ' ');
                    col += n;
                }
            } else {
                append_utf8(out, c);
                col = (c == '\n' || c == '\r') ? 0 : col + 1;
            }
        }
        return Value::string(std::move(out));
    }
    if (name == "format") {
        FieldLookup lookup = [&r](const Value& obj, const Value& key, bool attribute) {
            return attribute ? r.getattr(obj, key.str()) : r.getitem(obj, key);
        };
        return Value::string(str_format(s, a, lookup, limit));
    }
    if (name == "format_map") {
        no_keywords(a, "str", name);
        arity(a, name, 1, 1);
        const Value& m = a.positional[0];
        if (!m.is_dict()) throw_type_error("'" + type_name(m) + "' object is not a mapping");
        CallArgs kw;
        for (const auto& [k, v] : m.dict().items)
            if (k.is_string()) kw.keywords.emplace_back(k.str(), v);
        FieldLookup lookup = [&r](const Value& obj, const Value& key, bool attribute) {
            return attribute ? r.getattr(obj, key.str()) : r.getitem(obj, key);
        };
        return Value::string(str_format(s, kw, lookup, limit));
    }
    no_keywords(a, "str", name);
    const auto& p = a.positional;
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        arity(a, name, 0, 1);
        return Value::string(py_strip(s, opt_chars(a, name), name != "rstrip", name != "lstrip"));
    }
    if (name == "upper") { arity(a, name, 0, 0); return Value::string(py_upper(s)); }
    if (name == "lower" || name == "casefold") { arity(a, name, 0, 0); return Value::string(py_lower(s)); }
    if (name == "title") { arity(a, name, 0, 0); return Value::string(py_title(s)); }
    if (name == "capitalize") { arity(a, name, 0, 0); return Value::string(py_capitalize(s)); }
    if (name == "swapcase") { arity(a, name, 0, 0); return Value::string(py_swapcase(s)); }
    if (name == "startswith" || name == "endswith") {
        arity(a, name, 1, 3);
        return Value::boolean(affix_match(s, p[0], a, name == "startswith", name));
    }
    if (name == "replace") {
        arity(a, name, 2, 3);
        const std::string& old = str_arg(p[0], "replace() argument 1");
        const std::string& repl = str_arg(p[1], "replace() argument 2");
        const int64_t count = p.size() > 2 ? int_arg(p[2], "count") : -1;
        const size_t estimate = old.empty() ? s.size() + (code_point_count(s) + 1) * repl.size()
                                            : s.size() + (repl.size() > old.size() ? (s.size() / old.size() + 1) * (repl.size() - old.size()) : 0);
        check_text_size(std::min(estimate, limit + 1), limit);
        return Value::string(py_replace(s, old, repl, count));
    }
    if (name == "find" || name == "rfind" || name == "index" || name == "rindex") {
        arity(a, name, 1, 3);
        const std::string& sub = str_arg(p[0], "");
        const int64_t at = py_find(s, sub, opt_index(a, 1), opt_index(a, 2), name[0] == 'r');
        if (at < 0 && (name == "index" || name == "rindex")) throw_value_error("substring not found");
        return Value::integer(at);
    }
    if (name == "count") {
        arity(a, name, 1, 3);
        return Value::integer(py_count(s, str_arg(p[0], ""), opt_index(a, 1), opt_index(a, 2)));
    }
    if (name == "join") {
        arity(a, name, 1, 1);
        if (!is_iterable(p[0])) throw_type_error("can only join an iterable");
        std::string out;
        size_t i = 0;
        for (const Value& item : r.iterate(p[0])) {
            if (!item.is_string())
                throw_type_error("sequence item " + std::to_string(i) + ": expected str instance, " + type_name(item) + " found");
            if (i++) out += s;
            out += item.str();
            check_text_size(out.size(), limit);
        }
        return Value::string(std::move(out));
    }
    if (name == "center" || name == "ljust" || name == "rjust") {
        arity(a, name, 1, 2);
        const int64_t width = int_arg(p[0], "width");
        char32_t fill = ' ';
        if (p.size() > 1) {
            const std::string& f = str_arg(p[1], "The fill character");
            if (code_point_count(f) != 1) throw_type_error("The fill character must be exactly one character long");
            size_t k = 0;
            fill = next_code_point(f, k);
        }
        if (width > int64_t(limit)) check_text_size(size_t(width), limit);
        return Value::string(py_pad(s, width, fill, name == "center" ? '^' : name == "ljust" ? '<' : '>'));
    }
    if (name == "zfill") {
        arity(a, name, 1, 1);
        const int64_t width = int_arg(p[0], "width");
        if (width > int64_t(limit)) check_text_size(size_t(width), limit);
        return Value::string(py_zfill(s, width));
    }
    if (name == "partition" || name == "rpartition") {
        arity(a, name, 1, 1);
        const std::string& sep = str_arg(p[0], "");
        if (sep.empty()) throw_value_error("empty separator");
        const size_t at = name == "partition" ? s.find(sep) : s.rfind(sep);
        if (at == std::string::npos) {
            if (name == "partition") return Value::tuple({Value::string(s), Value::string(""), Value::string("")});
            return Value::tuple({Value::string(""), Value::string(""), Value::string(s)});
        }
        return Value::tuple({Value::string(s.substr(0, at)), Value::string(sep), Value::string(s.substr(at + sep.size()))});
    }
    if (name == "removeprefix" || name == "removesuffix") {
        arity(a, name, 1, 1);
        const std::string& x = str_arg(p[0], "");
        if (name == "removeprefix") return Value::string(s.compare(0, x.size(), x) == 0 ? s.substr(x.size()) : s);
        if (x.size() <= s.size() && s.compare(s.size() - x.size(), x.size(), x) == 0)
            return Value::string(s.substr(0, s.size() - x.size()));
        return Value::string(s);
    }
    arity(a, name, 0, 0);
    if (name == "isalnum") return Value::boolean(py_is_class(s, py_isalnum));
    if (name == "isalpha") return Value::boolean(py_is_class(s, py_isalpha));
    if (name == "isascii") return Value::boolean(is_ascii(s));
    if (name == "isdecimal") return Value::boolean(py_is_class(s, py_isdecimal));
    if (name == "isdigit") return Value::boolean(py_is_class(s, py_isdigit));
    if (name == "isnumeric") return Value::boolean(py_is_class(s, py_isnumeric));
    if (name == "isspace") return Value::boolean(py_is_class(s, py_isspace));
    if (name == "isprintable") return Value::boolean(s.empty() || py_is_class(s, py_isprintable));
    if (name == "isidentifier") return Value::boolean(is_identifier(s));
    if (name == "islower") return Value::boolean(py_islower(s));
    if (name == "isupper") return Value::boolean(py_isupper(s));
    if (name == "istitle") return Value::boolean(py_istitle(s));
    throw Fault(FaultKind::TemplateRuntimeError, "str." + name + "() is not supported by this template engine");
}

// markupsafe's Markup methods: most take escaped arguments and return Markup again.
Value markup_method(Renderer& r, const std::string& s, const std::string& name, CallArgs& a) {
    auto escape_args = [&]() {
        for (Value& v : a.positional)
            if (v.is_string() && !v.is_markup()) v = Value::markup(html_escape(v.str()));
        for (auto& kv : a.keywords)
            if (kv.second.is_string() && !kv.second.is_markup()) kv.second = Value::markup(html_escape(kv.second.str()));
    };
    auto as_markup = [](Value v) {
        if (v.is_string()) return Value::markup(v.str());
        if (v.is_seq()) {
            std::vector<Value> items;
            for (const Value& x : v.items()) items.push_back(x.is_string() ? Value::markup(x.str()) : x);
            return Value::sequence(std::move(items), v.seq_kind());
        }
        return v;
    };
    static const std::set<std::string> escaping{"capitalize", "title", "lower", "upper", "replace", "ljust", "rjust",
                                                "lstrip", "rstrip", "center", "strip", "expandtabs", "swapcase", "zfill"};
    if (escaping.count(name)) {
        escape_args();
        return as_markup(str_method(r, s, name, a));
    }
    if (name == "split" || name == "rsplit" || name == "splitlines") return as_markup(str_method(r, s, name, a));
    if (name == "partition" || name == "rpartition") {
        escape_args();
        return as_markup(str_method(r, s, name, a));
    }
    if (name == "join") {
        if (a.positional.size() == 1 && is_iterable(a.positional[0])) {
            std::vector<Value> items;
            for (Value& v : r.iterate(a.positional[0]))
                items.push_back(v.is_string() && !v.is_markup() ? Value::markup(html_escape(v.str())) : v);
            a.positional[0] = Value::list(std::move(items));
        }
        return as_markup(str_method(r, s, name, a));
    }
    if (name == "format" || name == "format_map") {
        FieldLookup lookup = [&r](const Value& obj, const Value& key, bool attribute) {
            return attribute ? r.getattr(obj, key.str()) : r.getitem(obj, key);
        };
        if (name == "format") return Value::markup(str_format(s, a, lookup, r.text_limit(), true));
        no_keywords(a, "Markup", name);
        arity(a, name, 1, 1);
        if (!a.positional[0].is_dict()) throw_type_error("'" + type_name(a.positional[0]) + "' object is not a mapping");
        CallArgs kw;
        for (const auto& [k, v] : a.positional[0].dict().items)
            if (k.is_string()) kw.keywords.emplace_back(k.str(), v);
        return Value::markup(str_format(s, kw, lookup, r.text_limit(), true));
    }
    return str_method(r, s, name, a);  // startswith, find, isdigit, ...: not strings
}

int64_t sequence_index(const std::vector<Value>& items, const CallArgs& a, const std::string& type) {
    arity(a, "index", 1, 3);
    const int64_t n = int64_t(items.size());
    auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
        if (!v) return dflt;
        int64_t x = *v < 0 ? *v + n : *v;
        return std::clamp<int64_t>(x, 0, n);
    };
    const int64_t b = clamp(opt_index(a, 1), 0), e = clamp(opt_index(a, 2), n);
    for (int64_t i = b; i < e; ++i)
        if (py_equal(items[size_t(i)], a.positional[0])) return i;
    if (type == "list") throw_value_error(py_repr(a.positional[0], 200) + " is not in list");
    throw_value_error(type + ".index(x): x not in " + type);
}

}  // namespace

std::optional<Value> builtin_attribute(Renderer& r, const Value& obj, const std::string& name) {
    if (name.size() > 4 && name.compare(0, 2, "__") == 0 && name.compare(name.size() - 2, 2, "__") == 0)
        return unsafe(obj, name);  // Python's dunder attributes exist on everything and are all unsafe
    auto v = find_attribute(r, obj, name);
    if (v && !name.empty() && name[0] == '_') return unsafe(obj, name);
    return v;
}

Value call_builtin_method(Renderer& r, const Value& receiver, const std::string& name, CallArgs args) {
    switch (receiver.kind()) {
    case Value::Kind::String:
        if (receiver.is_markup()) return markup_method(r, receiver.str(), name, args);
        return str_method(r, receiver.str(), name, args);
    case Value::Kind::Dict: {
        const auto& d = receiver.dict();
        if (name == "get") {
            no_keywords(args, "dict", name);
            arity(args, name, 1, 2);
            require_hashable(args.positional[0]);
            const Value* v = d.find(args.positional[0]);
            return v ? *v : (args.positional.size() > 1 ? args.positional[1] : Value::none());
        }
        no_keywords(args, "dict", name);
        if (name == "fromkeys") {
            arity(args, name, 1, 2);
            std::vector<std::pair<Value, Value>> items;
            const Value fill = args.positional.size() > 1 ? args.positional[1] : Value::none();
            for (Value& k : r.iterate(args.positional[0])) {
                require_hashable(k);
                items.emplace_back(std::move(k), fill);
            }
            return Value::dict(std::move(items));
        }
        arity(args, name, 0, 0);
        if (name == "copy") return Value::dict(d.items);
        std::vector<Value> out;
        r.charge(d.items.size() / 16);
        for (const auto& [k, v] : d.items) {
            if (name == "keys") out.push_back(k);
            else if (name == "values") out.push_back(v);
            else out.push_back(Value::tuple({k, v}));
        }
        return Value::sequence(std::move(out), name == "keys" ? SeqKind::DictKeys : name == "values" ? SeqKind::DictValues
                                                                                                   : SeqKind::DictItems);
    }
    case Value::Kind::Seq: {
        const std::string type = type_name(receiver);
        no_keywords(args, type, name);
        const auto& items = receiver.items();
        if (name == "copy") {
            arity(args, name, 0, 0);
            return Value::list(items);
        }
        if (name == "count") {
            arity(args, name, 1, 1);
            int64_t n = 0;
            for (const Value& x : items) n += py_equal(x, args.positional[0]) ? 1 : 0;
            return Value::integer(n);
        }
        if (name == "index") return Value::integer(sequence_index(items, args, type == "list" ? "list" : "tuple"));
        break;
    }
    case Value::Kind::Bool:
    case Value::Kind::Int:
        arity(args, name, 0, 0);
        if (name == "bit_length") {
            uint64_t m = receiver.as_int() < 0 ? uint64_t(0) - uint64_t(receiver.as_int()) : uint64_t(receiver.as_int());
            int64_t bits = 0;
            while (m) {
                ++bits;
                m >>= 1;
            }
            return Value::integer(bits);
        }
        if (name == "conjugate") return Value::integer(receiver.as_int());
        break;
    case Value::Kind::Float:
        arity(args, name, 0, 0);
        if (name == "is_integer") return Value::boolean(std::isfinite(receiver.as_float()) && receiver.as_float() == std::floor(receiver.as_float()));
        if (name == "conjugate") return receiver;
        break;
    default: break;
    }
    throw Fault(FaultKind::TemplateRuntimeError, type_name(receiver) + "." + name + "() is not supported by this template engine");
}

}  // namespace folio::jinja
