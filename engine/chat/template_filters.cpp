// The filters of Jinja2 3.1 (and transformers' tojson), each as the Python original behaves.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "engine/chat/python_format.h"
#include "engine/chat/python_ops.h"
#include "engine/chat/python_repr.h"
#include "engine/chat/python_text.h"
#include "engine/chat/template_builtins.h"
#include "engine/chat/template_call_args.h"
#include "engine/chat/template_json.h"
#include "engine/chat/template_objects.h"
#include "engine/chat/template_renderer.h"

namespace folio::jinja {

namespace {

using Bound = std::vector<std::optional<Value>>;

std::string soft_str(Renderer& r, const Value& v) { return py_str(v, r.text_limit()); }

Value generator(std::vector<Value> items, const char* origin) {
    return Value::object(std::make_shared<GeneratorObject>(std::move(items), origin));
}

bool arg_true(const std::optional<Value>& v) { return v && truthy(*v); }

std::vector<Value> items_of(Renderer& r, const Value& v) {
    auto items = r.iterate(v);
    r.charge(items.size() / 4);
    return items;
}

// Jinja2's make_attrgetter: "a.b.0" looks up a, then b, then index 0, through the sandbox's getitem.
std::vector<Value> attribute_parts(const std::optional<Value>& attribute) {
    std::vector<Value> parts;
    if (!attribute || attribute->is_none()) return parts;
    if (attribute->is_string()) {
        for (auto& part : py_split(attribute->str(), std::string("."), -1)) {
            const bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos && part.size() < 18;
            parts.push_back(digits ? Value::integer(std::stoll(part)) : Value::string(part));
        }
        return parts;
    }
    parts.push_back(*attribute);
    return parts;
}

Value ignore_case(const Value& v) { return v.is_string() ? Value::string(py_lower(v.str())) : v; }

struct AttrGetter {
    std::vector<Value> parts;
    bool lower = false;
    std::optional<Value> fallback = std::nullopt;  // `default` of map/groupby (None means no default)

    Value operator()(Renderer& r, Value item) const {
        for (const Value& part : parts) {
            item = r.getitem(item, part);
            if (fallback && !fallback->is_none() && item.is_undefined()) item = *fallback;
        }
        return lower ? ignore_case(item) : item;
    }
};

// Python's sorted(): stable; reverse keeps equal items in their original order.
void stable_sort_by(std::vector<size_t>& order, const std::vector<Value>& keys, bool reverse) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return reverse ? py_less(keys[b], keys[a]) : py_less(keys[a], keys[b]);
    });
}

// ---- filters -------------------------------------------------------------------------------

Value f_abs(Renderer&, Value v, CallArgs a) {
    if (!a.positional.empty() || !a.keywords.empty()) throw_type_error("abs() takes exactly one argument");
    if (v.is_integral()) {
        if (v.as_int() == INT64_MIN) throw Fault(FaultKind::OverflowError, "integer result does not fit in 64 bits");
        return Value::integer(std::llabs(v.as_int()));
    }
    if (v.is_float()) return Value::number(std::fabs(v.as_float()));
    throw_type_error("bad operand type for abs(): '" + type_name(v) + "'");
}

Value f_attr(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_attr", {"name"});
    if (!b[0]) throw_type_error("do_attr() missing 1 required positional argument: 'name'");
    return r.attribute_only(v, soft_str(r, *b[0]));
}

Value f_batch(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_batch", {"linecount", "fill_with"});
    if (!b[0]) throw_type_error("do_batch() missing 1 required positional argument: 'linecount'");
    const int64_t n = int_arg(*b[0], "linecount");
    std::vector<Value> out, tmp;
    for (Value& item : items_of(r, v)) {
        if (int64_t(tmp.size()) == n) {
            out.push_back(Value::list(std::move(tmp)));
            tmp.clear();
        }
        tmp.push_back(std::move(item));
    }
    if (!tmp.empty()) {
        if (b[1] && !b[1]->is_none())
            while (int64_t(tmp.size()) < n) tmp.push_back(*b[1]);
        out.push_back(Value::list(std::move(tmp)));
    }
    return generator(std::move(out), "do_batch");
}

Value f_capitalize(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_capitalize", {});
    return Value::string(py_capitalize(soft_str(r, v)));
}

Value f_center(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_center", {"width"});
    const int64_t width = b[0] ? int_arg(*b[0], "width") : 80;
    if (width > int64_t(r.text_limit())) check_text_size(size_t(width), r.text_limit());
    return Value::string(py_pad(soft_str(r, v), width, ' ', '^'));
}

Value f_length(Renderer&, Value v, CallArgs a) {
    if (!a.positional.empty() || !a.keywords.empty()) throw_type_error("len() takes exactly one argument");
    auto n = py_len(v);
    if (!n) throw_type_error("object of type '" + type_name(v) + "' has no len()");
    return Value::integer(*n);
}

Value f_default(Renderer&, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_default", {"default_value", "boolean"});
    if (v.is_undefined() || (arg_true(b[1]) && !truthy(v))) return b[0] ? *b[0] : Value::string("");
    return v;
}

Value f_dictsort(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_dictsort", {"case_sensitive", "by", "reverse"});
    int pos = 0;
    if (b[1]) {
        const Value& by = *b[1];
        if (by.is_string() && by.str() == "value") pos = 1;
        else if (!(by.is_string() && by.str() == "key"))
            throw Fault(FaultKind::FilterArgumentError, "You can only sort by either \"key\" or \"value\"");
    }
    if (v.is_undefined()) fail_undefined(v);  // value.items() on an Undefined
    if (!v.is_dict()) throw Fault(FaultKind::AttributeError, "'" + type_name(v) + "' object has no attribute 'items'");
    const auto& items = v.dict().items;
    std::vector<Value> keys;
    std::vector<size_t> order;
    for (size_t i = 0; i < items.size(); ++i) {
        const Value& k = pos == 0 ? items[i].first : items[i].second;
        keys.push_back(arg_true(b[0]) ? k : ignore_case(k));
        order.push_back(i);
    }
    r.charge(items.size());
    stable_sort_by(order, keys, arg_true(b[2]));
    std::vector<Value> out;
    for (size_t i : order) out.push_back(Value::tuple({items[i].first, items[i].second}));
    return Value::list(std::move(out));
}

std::string html_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '\'': out += "&#39;"; break;
        case '"': out += "&#34;"; break;
        default: out += c;
        }
    }
    return out;
}

Value f_escape(Renderer& r, Value v, CallArgs a) {
    if (!a.positional.empty() || !a.keywords.empty()) throw_type_error("escape() takes exactly one argument");
    return Value::string(html_escape(soft_str(r, v)));
}

Value f_filesizeformat(Renderer&, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_filesizeformat", {"binary"});
    double bytes;
    if (v.is_number()) bytes = v.as_float();
    else if (v.is_string()) {
        auto d = parse_python_float(v.str());
        if (!d) throw_value_error("could not convert string to float: " + py_string_repr(v.str()));
        bytes = *d;
    } else {
        if (v.is_undefined()) fail_undefined(v);
        throw_type_error("float() argument must be a string or a real number, not '" + type_name(v) + "'");
    }
    const bool binary = arg_true(b[0]);
    const double base = binary ? 1024.0 : 1000.0;
    static const char* decimal[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    static const char* bin[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    if (bytes == 1.0) return Value::string("1 Byte");
    if (bytes < base) return Value::string(std::to_string(float_to_int(bytes)) + " Bytes");
    double unit = base;
    char buf[64];
    for (int i = 0; i < 8; ++i) {
        unit = std::pow(base, i + 2);
        if (bytes < unit || i == 7) {
            std::snprintf(buf, sizeof buf, "%.1f %s", base * bytes / unit, binary ? bin[i] : decimal[i]);
            return Value::string(buf);
        }
    }
    return Value::string("");
}

Value f_first(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_first", {});
    if (v.is_object()) {
        if (auto* g = dynamic_cast<GeneratorObject*>(v.obj())) {
            if (auto item = g->next_item()) return *item;
            return Value::undefined("No first item, sequence was empty.");
        }
    }
    if (!is_iterable(v)) throw_type_error("'" + type_name(v) + "' object is not iterable");
    if (v.is_seq() && !v.items().empty()) return v.items()[0];
    auto items = r.iterate(v);
    if (items.empty()) return Value::undefined("No first item, sequence was empty.");
    return items[0];
}

Value f_float(Renderer&, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_float", {"default"});
    const Value fallback = b[0] ? *b[0] : Value::number(0.0);
    if (v.is_undefined()) fail_undefined(v);
    if (v.is_number()) return Value::number(v.as_float());
    if (v.is_string()) {
        auto d = parse_python_float(v.str());
        return d ? Value::number(*d) : fallback;
    }
    return fallback;
}

Value f_format(Renderer& r, Value v, CallArgs a) {
    if (!a.positional.empty() && !a.keywords.empty())
        throw Fault(FaultKind::FilterArgumentError, "can't handle positional and keyword arguments at the same time");
    Value args;
    if (!a.keywords.empty()) {
        std::vector<std::pair<Value, Value>> kw;
        for (auto& [k, x] : a.keywords) kw.emplace_back(Value::string(k), x);
        args = Value::dict(std::move(kw));
    } else {
        args = Value::tuple(std::move(a.positional));
    }
    return Value::string(percent_format(soft_str(r, v), args, r.text_limit()));
}

Value f_groupby(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_groupby", {"attribute", "default", "case_sensitive"});
    if (!b[0]) throw_type_error("do_groupby() missing 1 required positional argument: 'attribute'");
    const bool case_sensitive = arg_true(b[2]);
    AttrGetter key{attribute_parts(b[0]), !case_sensitive, b[1]};
    AttrGetter real{attribute_parts(b[0]), false, b[1]};
    std::vector<Value> items = items_of(r, v);
    std::vector<Value> keys;
    std::vector<size_t> order;
    for (size_t i = 0; i < items.size(); ++i) {
        keys.push_back(key(r, items[i]));
        order.push_back(i);
    }
    stable_sort_by(order, keys, false);
    std::vector<Value> groups;
    size_t i = 0;
    while (i < order.size()) {
        size_t j = i;
        std::vector<Value> members;
        while (j < order.size() && py_equal(keys[order[j]], keys[order[i]])) members.push_back(items[order[j++]]);
        const Value grouper = case_sensitive ? keys[order[i]] : real(r, members[0]);
        groups.push_back(Value::sequence({grouper, Value::list(std::move(members))}, SeqKind::GroupTuple));
        i = j;
    }
    return Value::list(std::move(groups));
}

Value f_indent(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_indent", {"width", "first", "blank"});
    std::string indention;
    if (b[0] && b[0]->is_string()) {
        indention = b[0]->str();
    } else {
        const int64_t width = b[0] ? int_arg(*b[0], "width") : 4;
        if (width > int64_t(r.text_limit())) check_text_size(size_t(width), r.text_limit());
        indention.assign(size_t(std::max<int64_t>(0, width)), ' ');
    }
    if (v.is_undefined()) fail_undefined(v);
    if (!v.is_string()) {  // what `s += "\n"; s.splitlines()` does to other types in Python
        if (v.is_seq() && v.seq_kind() == SeqKind::List)
            throw Fault(FaultKind::AttributeError, "'list' object has no attribute 'splitlines'");
        if (v.is_seq() && (v.seq_kind() == SeqKind::Tuple || v.seq_kind() == SeqKind::GroupTuple))
            throw_type_error("can only concatenate tuple (not \"str\") to tuple");
        throw_type_error("unsupported operand type(s) for +=: '" + type_name(v) + "' and 'str'");
    }
    const std::vector<std::string> lines = py_splitlines(v.str() + "\n", false);
    std::string out;
    if (arg_true(b[2])) {
        for (size_t i = 0; i < lines.size(); ++i) {
            if (i) out += "\n" + indention;
            out += lines[i];
            check_text_size(out.size(), r.text_limit());
        }
    } else {
        out = lines.empty() ? "" : lines[0];
        for (size_t i = 1; i < lines.size(); ++i) {
            out += "\n";
            if (!lines[i].empty()) out += indention;
            out += lines[i];
            check_text_size(out.size(), r.text_limit());
        }
    }
    if (arg_true(b[1])) out = indention + out;
    return Value::string(std::move(out));
}

Value f_int(Renderer&, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_int", {"default", "base"});
    const Value fallback = b[0] ? *b[0] : Value::integer(0);
    const int64_t base = b[1] ? int_arg(*b[1], "base") : 10;
    if (v.is_undefined()) fail_undefined(v);
    if (v.is_integral()) return Value::integer(v.as_int());
    if (v.is_float()) return Value::integer(float_to_int(v.as_float()));
    if (v.is_string()) {
        if (base != 0 && (base < 2 || base > 36)) throw_value_error("int() base must be >= 2 and <= 36, or 0");
        if (auto i = parse_python_int(v.str(), int(base))) return Value::integer(*i);
        if (auto d = parse_python_float(v.str())) return Value::integer(float_to_int(*d));
    }
    return fallback;
}

Value f_items(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_items", {});
    if (v.is_undefined()) return generator({}, "do_items");
    if (!v.is_dict()) throw_type_error("Can only get item pairs from a mapping.");
    std::vector<Value> out;
    for (const auto& [k, x] : v.dict().items) out.push_back(Value::tuple({k, x}));
    r.charge(out.size() / 4);
    return generator(std::move(out), "do_items");
}

Value f_join(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_join", {"d", "attribute"});
    const std::string sep = b[0] ? soft_str(r, *b[0]) : "";
    AttrGetter get{attribute_parts(b[1])};
    std::string out;
    bool first = true;
    for (const Value& item : items_of(r, v)) {
        if (!first) out += sep;
        first = false;
        append_str(out, get.parts.empty() ? item : get(r, item), r.text_limit());
        check_text_size(out.size(), r.text_limit());
    }
    return Value::string(std::move(out));
}

Value f_last(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_last", {});
    const bool reversible = v.is_string() || v.is_dict() || v.is_undefined() ||
                            (v.is_seq());
    if (!reversible) throw_type_error("'" + type_name(v) + "' object is not reversible");
    auto items = r.iterate(v);
    if (items.empty()) return Value::undefined("No last item, sequence was empty.");
    return items.back();
}

Value f_list(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_list", {});
    if (!is_iterable(v)) throw_type_error("'" + type_name(v) + "' object is not iterable");
    return Value::list(items_of(r, v));
}

Value f_lower(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_lower", {});
    return Value::string(py_lower(soft_str(r, v)));
}

Value f_upper(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_upper", {});
    return Value::string(py_upper(soft_str(r, v)));
}

Value f_map(Renderer& r, Value v, CallArgs a) {
    if (!truthy(v)) return generator({}, "sync_do_map");
    std::function<Value(const Value&)> fn;
    if (a.positional.empty() && a.keyword("attribute")) {
        AttrGetter get;
        std::optional<Value> fallback;
        for (auto& [k, x] : a.keywords) {
            if (k == "attribute") get.parts = attribute_parts(x);
            else if (k == "default") fallback = x;
            else throw Fault(FaultKind::FilterArgumentError, "Unexpected keyword argument '" + k + "'");
        }
        get.fallback = fallback;
        fn = [&r, get](const Value& item) { return get(r, item); };
    } else {
        if (a.positional.empty()) throw Fault(FaultKind::FilterArgumentError, "map requires a filter argument");
        const std::string name = soft_str(r, a.positional[0]);
        CallArgs rest;
        rest.positional.assign(a.positional.begin() + 1, a.positional.end());
        rest.keywords = a.keywords;
        fn = [&r, name, rest](const Value& item) { return r.apply_filter(name, item, rest); };
    }
    std::vector<Value> out;
    for (const Value& item : items_of(r, v)) out.push_back(fn(item));
    return generator(std::move(out), "sync_do_map");
}

Value min_or_max(Renderer& r, Value v, CallArgs a, bool max) {
    Bound b = bind_args(a, max ? "do_max" : "do_min", {"case_sensitive", "attribute"});
    AttrGetter key{attribute_parts(b[1]), !arg_true(b[0])};
    auto items = items_of(r, v);
    if (items.empty()) return Value::undefined("No aggregated item, sequence was empty.");
    size_t best = 0;
    Value best_key = key(r, items[0]);
    for (size_t i = 1; i < items.size(); ++i) {
        Value k = key(r, items[i]);
        if (py_compare(max ? CompareOp::Gt : CompareOp::Lt, k, best_key)) {
            best = i;
            best_key = std::move(k);
        }
    }
    return items[best];
}

Value f_max(Renderer& r, Value v, CallArgs a) { return min_or_max(r, std::move(v), std::move(a), true); }
Value f_min(Renderer& r, Value v, CallArgs a) { return min_or_max(r, std::move(v), std::move(a), false); }

Value select_or_reject(Renderer& r, const Value& v, CallArgs a, bool select, bool attr) {
    if (!truthy(v)) return generator({}, "select_or_reject");
    AttrGetter get;
    size_t off = 0;
    if (attr) {
        if (a.positional.empty()) throw Fault(FaultKind::FilterArgumentError, "Missing parameter for attribute name");
        get.parts = attribute_parts(a.positional[0]);
        off = 1;
    }
    std::optional<std::string> test;
    CallArgs rest;
    if (a.positional.size() > off) {
        test = soft_str(r, a.positional[off]);
        rest.positional.assign(a.positional.begin() + std::ptrdiff_t(off) + 1, a.positional.end());
    }
    rest.keywords = a.keywords;
    std::vector<Value> out;
    for (Value& item : items_of(r, v)) {
        const Value subject = attr ? get(r, item) : item;
        const bool ok = test ? r.apply_test(*test, subject, rest) : truthy(subject);
        if (ok == select) out.push_back(std::move(item));
    }
    return generator(std::move(out), "select_or_reject");
}

Value f_select(Renderer& r, Value v, CallArgs a) { return select_or_reject(r, v, std::move(a), true, false); }
Value f_reject(Renderer& r, Value v, CallArgs a) { return select_or_reject(r, v, std::move(a), false, false); }
Value f_selectattr(Renderer& r, Value v, CallArgs a) { return select_or_reject(r, v, std::move(a), true, true); }
Value f_rejectattr(Renderer& r, Value v, CallArgs a) { return select_or_reject(r, v, std::move(a), false, true); }

Value f_replace(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_replace", {"old", "new", "count"});
    if (!b[0] || !b[1]) throw_type_error("do_replace() missing required arguments 'old' and 'new'");
    const int64_t count = b[2] && !b[2]->is_none() ? int_arg(*b[2], "count") : -1;
    const std::string s = soft_str(r, v), old = soft_str(r, *b[0]), repl = soft_str(r, *b[1]);
    const size_t estimate = old.empty() ? s.size() + (code_point_count(s) + 1) * repl.size()
                                        : s.size() + (repl.size() > old.size() ? (s.size() / old.size() + 1) * (repl.size() - old.size()) : 0);
    check_text_size(std::min(estimate, r.text_limit() + 1), r.text_limit());
    return Value::string(py_replace(s, old, repl, count));
}

Value f_reverse(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_reverse", {});
    if (v.is_string()) {
        std::u32string cps = to_code_points(v.str());
        std::reverse(cps.begin(), cps.end());
        return Value::string(to_utf8(cps));
    }
    if (!is_iterable(v)) throw Fault(FaultKind::FilterArgumentError, "argument must be iterable");
    auto items = items_of(r, v);
    std::reverse(items.begin(), items.end());
    if (v.is_object()) return Value::list(std::move(items));  // reversed() fails, list(value) reversed
    const char* type = v.is_dict() ? "dict_reversekeyiterator" : (v.is_seq() && v.seq_kind() == SeqKind::List) ? "list_reverseiterator"
                                                                                                            : "reversed";
    return Value::object(std::make_shared<GeneratorObject>(std::move(items), "", type));
}

Value f_round(Renderer&, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_round", {"precision", "method"});
    const int64_t precision = b[0] ? int_arg(*b[0], "precision") : 0;
    std::string method = "common";
    if (b[1]) method = b[1]->is_string() ? b[1]->str() : "?";
    if (method != "common" && method != "ceil" && method != "floor")
        throw Fault(FaultKind::FilterArgumentError, "method must be common, ceil or floor");
    if (!v.is_number()) throw_type_error("type " + type_name(v) + " doesn't define __round__ method");
    if (method == "common") {
        if (v.is_integral()) {
            if (precision >= 0) return Value::integer(v.as_int());
            // round(int, -n): to a multiple of 10**n, ties to even
            if (precision < -18) return Value::integer(0);
            int64_t p = 1;
            for (int64_t i = 0; i < -precision; ++i) p *= 10;
            const int64_t x = v.as_int();
            int64_t q = x / p, rem = x % p;
            if (rem < 0) { rem += p; q -= 1; }
            if (rem * 2 > p || (rem * 2 == p && (q & 1))) q += 1;
            return Value::integer(q * p);
        }
        const double x = v.as_float();
        if (!std::isfinite(x)) return Value::number(x);
        if (precision > 300) return Value::number(x);
        if (precision >= 0) {
            char buf[512];
            std::snprintf(buf, sizeof buf, "%.*f", int(precision), x);  // correctly rounded, ties to even
            return Value::number(std::strtod(buf, nullptr));
        }
        const double p = std::pow(10.0, double(-precision));
        return Value::number(std::nearbyint(x / p) * p);
    }
    const double p = std::pow(10.0, double(precision));
    const double y = v.as_float() * p;
    const double r = method == "ceil" ? std::ceil(y) : std::floor(y);
    return Value::number(r / p);
}

Value f_safe(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_mark_safe", {});
    return Value::string(soft_str(r, v));
}

Value f_slice(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "sync_do_slice", {"slices", "fill_with"});
    if (!b[0]) throw_type_error("sync_do_slice() missing 1 required positional argument: 'slices'");
    const int64_t slices = int_arg(*b[0], "slices");
    auto seq = items_of(r, v);
    if (slices == 0) throw Fault(FaultKind::ZeroDivisionError, "integer division or modulo by zero");
    const int64_t length = int64_t(seq.size());
    int64_t per = length / slices, extra = length % slices;
    if (extra < 0) { extra += slices; per -= 1; }  // Python's floor division
    std::vector<Value> out;
    int64_t offset = 0;
    r.charge(uint64_t(std::max<int64_t>(slices, 0)));
    for (int64_t n = 0; n < slices; ++n) {
        const int64_t start = offset + n * per;
        if (n < extra) ++offset;
        const int64_t end = offset + (n + 1) * per;
        std::vector<Value> tmp;
        for (int64_t i = std::max<int64_t>(start, 0); i < std::min(end, length); ++i) tmp.push_back(seq[size_t(i)]);
        if (b[1] && !b[1]->is_none() && n >= extra) tmp.push_back(*b[1]);
        out.push_back(Value::list(std::move(tmp)));
    }
    return generator(std::move(out), "sync_do_slice");
}

Value f_sort(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_sort", {"reverse", "case_sensitive", "attribute"});
    const bool lower = !arg_true(b[1]);
    std::vector<std::vector<Value>> attr_paths;
    if (b[2] && b[2]->is_string()) {
        for (auto& part : py_split(b[2]->str(), std::string(","), -1)) attr_paths.push_back(attribute_parts(Value::string(part)));
    } else {
        attr_paths.push_back(attribute_parts(b[2]));
    }
    auto items = items_of(r, v);
    std::vector<Value> keys;
    std::vector<size_t> order;
    for (size_t i = 0; i < items.size(); ++i) {
        std::vector<Value> key;
        for (const auto& path : attr_paths) key.push_back(AttrGetter{path, lower}(r, items[i]));
        keys.push_back(Value::list(std::move(key)));
        order.push_back(i);
    }
    r.charge(items.size() * 4);
    stable_sort_by(order, keys, arg_true(b[0]));
    std::vector<Value> out;
    for (size_t i : order) out.push_back(items[i]);
    return Value::list(std::move(out));
}

Value f_string(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "soft_str", {});
    return Value::string(soft_str(r, v));
}

Value f_sum(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_sum", {"attribute", "start"});
    Value total = b[1] ? *b[1] : Value::integer(0);
    if (total.is_string()) throw_type_error("sum() can't sum strings [use ''.join(seq) instead]");
    AttrGetter get{attribute_parts(b[0])};
    if (!is_iterable(v)) throw_type_error("'" + type_name(v) + "' object is not iterable");
    for (const Value& item : items_of(r, v)) total = py_binary(BinaryOp::Add, total, get.parts.empty() ? item : get(r, item), r.text_limit());
    return total;
}

Value f_title(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_title", {});
    // Jinja's own title(): words start after runs of whitespace, '-', '(', '{', '[' or '<'.
    const std::u32string s = to_code_points(soft_str(r, v));
    auto separator = [](char32_t c) { return py_isspace(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<'; };
    std::string out;
    size_t i = 0;
    while (i < s.size()) {
        size_t j = i;
        const bool sep = separator(s[i]);
        while (j < s.size() && separator(s[j]) == sep) ++j;
        std::string head;
        append_utf8(head, s[i]);
        out += py_upper(head) + py_lower(to_utf8(std::u32string_view(s).substr(i + 1, j - i - 1)));
        i = j;
    }
    return Value::string(std::move(out));
}

Value f_tojson(Renderer& r, Value v, CallArgs a) {
    // transformers: lambda x, ensure_ascii=False, indent=None, separators=None, sort_keys=False: json.dumps(...)
    Bound b = bind_args(a, "<lambda>", {"ensure_ascii", "indent", "separators", "sort_keys"});
    JsonDumpOptions opt;
    opt.ensure_ascii = arg_true(b[0]);
    if (b[1] && !b[1]->is_none()) {
        if (b[1]->is_string()) opt.indent = b[1]->str();
        else {
            const int64_t n = int_arg(*b[1], "indent");
            if (n > 1000) check_text_size(size_t(n) * 1000000, r.text_limit());
            opt.indent = std::string(size_t(std::max<int64_t>(n, 0)), ' ');
        }
    }
    if (b[2] && !b[2]->is_none()) {
        auto parts = r.iterate(*b[2]);
        if (parts.size() != 2) throw_value_error("too many values to unpack (expected 2)");
        opt.item_separator = str_arg(parts[0], "item separator");
        opt.key_separator = str_arg(parts[1], "key separator");
    }
    opt.sort_keys = arg_true(b[3]);
    std::string out = dump_json(v, opt, r.text_limit());
    r.charge(out.size() / 64);
    return Value::string(std::move(out));
}

Value f_trim(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_trim", {"chars"});
    std::optional<std::string> chars;
    if (b[0] && !b[0]->is_none()) {
        if (!b[0]->is_string()) throw_type_error("strip arg must be None or str");
        chars = b[0]->str();
    }
    return Value::string(py_strip(soft_str(r, v), chars, true, true));
}

Value f_truncate(Renderer& r, Value v, CallArgs a) {
    Bound c = bind_args(a, "do_truncate", {"length", "killwords", "end", "leeway"});
    const int64_t length = c[0] ? int_arg(*c[0], "length") : 255;
    const std::string end = c[2] ? soft_str(r, *c[2]) : "...";
    const int64_t leeway = c[3] && !c[3]->is_none() ? int_arg(*c[3], "leeway") : 5;
    const int64_t end_len = int64_t(code_point_count(end));
    if (length < end_len)
        throw Fault(FaultKind::AssertionError, "expected length >= " + std::to_string(end_len) + ", got " + std::to_string(length));
    if (leeway < 0) throw Fault(FaultKind::AssertionError, "expected leeway >= 0, got " + std::to_string(leeway));
    if (v.is_undefined()) fail_undefined(v);
    if (!v.is_string()) throw_type_error("object of type '" + type_name(v) + "' has no len()");
    const std::string& s = v.str();
    if (int64_t(code_point_count(s)) <= length + leeway) return v;
    const std::string head = py_substr(s, 0, length - end_len);
    if (arg_true(c[1])) return Value::string(head + end);
    return Value::string(py_rsplit(head, std::string(" "), 1).front() + end);
}

Value f_unique(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_unique", {"case_sensitive", "attribute"});
    AttrGetter key{attribute_parts(b[1]), !arg_true(b[0])};
    std::vector<Value> seen, out;
    for (Value& item : items_of(r, v)) {
        Value k = key(r, item);
        require_hashable(k);
        bool dup = false;
        for (const Value& s : seen)
            if (py_equal(s, k)) {
                dup = true;
                break;
            }
        r.charge(seen.size() / 64);
        if (!dup) {
            seen.push_back(std::move(k));
            out.push_back(std::move(item));
        }
    }
    return generator(std::move(out), "sync_do_unique");
}

Value f_wordcount(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_wordcount", {});
    const std::string s = soft_str(r, v);
    int64_t count = 0;
    bool in_word = false;
    for (size_t i = 0; i < s.size();) {
        const bool w = py_isword(next_code_point(s, i));
        if (w && !in_word) ++count;
        in_word = w;
    }
    return Value::integer(count);
}

struct FilterEntry {
    const char* name;
    FilterFn fn;
};

const FilterEntry kFilters[] = {
    {"abs", f_abs},
    {"attr", f_attr},
    {"batch", f_batch},
    {"capitalize", f_capitalize},
    {"center", f_center},
    {"count", f_length},
    {"d", f_default},
    {"default", f_default},
    {"dictsort", f_dictsort},
    {"e", f_escape},
    {"escape", f_escape},
    {"filesizeformat", f_filesizeformat},
    {"first", f_first},
    {"float", f_float},
    {"forceescape", f_escape},
    {"format", f_format},
    {"groupby", f_groupby},
    {"indent", f_indent},
    {"int", f_int},
    {"items", f_items},
    {"join", f_join},
    {"last", f_last},
    {"length", f_length},
    {"list", f_list},
    {"lower", f_lower},
    {"map", f_map},
    {"max", f_max},
    {"min", f_min},
    {"reject", f_reject},
    {"rejectattr", f_rejectattr},
    {"replace", f_replace},
    {"reverse", f_reverse},
    {"round", f_round},
    {"safe", f_safe},
    {"select", f_select},
    {"selectattr", f_selectattr},
    {"slice", f_slice},
    {"sort", f_sort},
    {"string", f_string},
    {"sum", f_sum},
    {"title", f_title},
    {"tojson", f_tojson},
    {"trim", f_trim},
    {"truncate", f_truncate},
    {"unique", f_unique},
    {"upper", f_upper},
    {"wordcount", f_wordcount},
};

}  // namespace

FilterFn find_filter(std::string_view name) {
    for (const auto& e : kFilters)
        if (name == e.name) return e.fn;
    return nullptr;
}

bool is_unimplemented_filter(std::string_view name) {
    static const char* names[] = {"pprint", "random", "striptags", "urlencode", "urlize", "wordwrap", "xmlattr"};
    for (const char* n : names)
        if (name == n) return true;
    return false;
}

}  // namespace folio::jinja
