// Filters on text and numbers (Jinja2 3.1, and transformers' tojson), as the Python originals behave.
#include "engine/jinja/template_filter_support.h"

#include <cmath>
#include <cstdio>

#include "engine/jinja/python_format.h"
#include "engine/jinja/template_json.h"

namespace folio::jinja::filters {

namespace {

Value f_abs(Renderer&, Value v, CallArgs a) {
    if (!a.positional.empty() || !a.keywords.empty()) throw_type_error("abs() takes exactly one argument");
    if (v.is_integral()) {
        if (v.as_int() == INT64_MIN) throw Fault(FaultKind::OverflowError, "integer result does not fit in 64 bits");
        return Value::integer(std::llabs(v.as_int()));
    }
    if (v.is_float()) return Value::number(std::fabs(v.as_float()));
    throw_type_error("bad operand type for abs(): '" + type_name(v) + "'");
}

Value f_capitalize(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_capitalize", {});
    return like(v, py_capitalize(soft_str(r, v)));
}

Value f_center(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_center", {"width"});
    const int64_t width = b[0] ? int_arg(*b[0], "width") : 80;
    if (width > int64_t(r.text_limit())) check_text_size(size_t(width), r.text_limit());
    return like(v, py_pad(soft_str(r, v), width, ' ', '^'));
}

Value f_default(Renderer&, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_default", {"default_value", "boolean"});
    if (v.is_undefined() || (arg_true(b[1]) && !truthy(v))) return b[0] ? *b[0] : Value::string("");
    return v;
}

Value f_escape(Renderer& r, Value v, CallArgs a) {
    if (!a.positional.empty() || !a.keywords.empty()) throw_type_error("escape() takes exactly one argument");
    if (v.is_markup()) return v;  // already safe
    return Value::markup(html_escape(soft_str(r, v)));
}

Value f_forceescape(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_forceescape", {});
    return Value::markup(html_escape(soft_str(r, v)));
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
    return like(v, percent_format(soft_str(r, v), args, r.text_limit(), v.is_markup()));
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
    return like(v, std::move(out));
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

Value f_lower(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_lower", {});
    return like(v, py_lower(soft_str(r, v)));
}

Value f_upper(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_upper", {});
    return like(v, py_upper(soft_str(r, v)));
}

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
    if (v.is_markup()) return v;
    return Value::markup(soft_str(r, v));
}

Value f_string(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "soft_str", {});
    return like(v, soft_str(r, v));
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
    return like(v, py_strip(soft_str(r, v), chars, true, true));
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
    // Markup + end escapes `end`
    const std::string tail = v.is_markup() ? html_escape(end) : end;
    if (arg_true(c[1])) return like(v, head + tail);
    return like(v, py_rsplit(head, std::string(" "), 1).front() + tail);
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

const FilterEntry kFilters[] = {
    {"abs", f_abs},
    {"capitalize", f_capitalize},
    {"center", f_center},
    {"d", f_default},
    {"default", f_default},
    {"e", f_escape},
    {"escape", f_escape},
    {"filesizeformat", f_filesizeformat},
    {"float", f_float},
    {"forceescape", f_forceescape},
    {"format", f_format},
    {"indent", f_indent},
    {"int", f_int},
    {"lower", f_lower},
    {"replace", f_replace},
    {"round", f_round},
    {"safe", f_safe},
    {"string", f_string},
    {"title", f_title},
    {"tojson", f_tojson},
    {"trim", f_trim},
    {"truncate", f_truncate},
    {"upper", f_upper},
    {"wordcount", f_wordcount},
};

}  // namespace

std::span<const FilterEntry> text_filters() { return kFilters; }

}  // namespace folio::jinja::filters
