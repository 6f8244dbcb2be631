#include "engine/jinja/python_format.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "engine/jinja/python_ops.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/python_text.h"

namespace folio::jinja {

namespace {

struct Spec {
    char32_t fill = ' ';
    char align = 0;  // '<' '>' '^' '='
    char sign = 0;   // '+' '-' ' '
    bool alt = false;
    bool zero = false;
    int64_t width = -1;
    char grouping = 0;  // ',' '_'
    int64_t precision = -1;
    char type = 0;
};

[[noreturn]] void value_error(const std::string& m) { throw_value_error(m); }

void check_width(int64_t n, size_t limit) {
    if (n > int64_t(limit)) check_text_size(size_t(n), limit);
}

std::string pad(const std::string& prefix, const std::string& body, const Spec& s, char default_align, size_t limit) {
    char align = s.align ? s.align : default_align;
    char32_t fill = s.fill;
    if (!s.align && s.zero) {
        align = '=';
        fill = '0';
    }
    const int64_t len = int64_t(code_point_count(prefix) + code_point_count(body));
    if (s.width <= len) return prefix + body;
    check_width(s.width, limit);
    const int64_t n = s.width - len;
    std::string fill_l, fill_r;
    int64_t left = 0;
    if (align == '>' || align == '=') left = n;
    else if (align == '^') left = n / 2;
    for (int64_t k = 0; k < left; ++k) append_utf8(fill_l, fill);
    for (int64_t k = 0; k < n - left; ++k) append_utf8(fill_r, fill);
    if (align == '=') return prefix + fill_l + body;
    return fill_l + prefix + body + fill_r;
}

std::string group(const std::string& digits, char sep, int every) {
    if (!sep) return digits;
    std::string out;
    const size_t n = digits.size();
    for (size_t i = 0; i < n; ++i) {
        if (i && (n - i) % size_t(every) == 0) out += sep;
        out += digits[i];
    }
    return out;
}

std::string sign_of(bool negative, char sign) {
    if (negative) return "-";
    if (sign == '+') return "+";
    if (sign == ' ') return " ";
    return "";
}

std::string to_base(uint64_t mag, int base, bool upper) {
    if (mag == 0) return "0";
    const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    std::string out;
    while (mag) {
        out += digits[mag % uint64_t(base)];
        mag /= uint64_t(base);
    }
    return std::string(out.rbegin(), out.rend());
}

std::string c_format(double v, char conv, int64_t precision, bool alt, size_t limit) {
    check_width(precision, limit);
    char fmt[8] = {'%', 0};
    size_t k = 1;
    if (alt) fmt[k++] = '#';
    fmt[k++] = '.';
    fmt[k++] = '*';
    fmt[k++] = conv;
    fmt[k] = 0;
    const int n = std::snprintf(nullptr, 0, fmt, int(precision), v);
    if (n < 0) return "?";
    check_text_size(size_t(n), limit);
    std::vector<char> buf(size_t(n) + 1);
    std::snprintf(buf.data(), buf.size(), fmt, int(precision), v);
    return std::string(buf.data(), size_t(n));
}

std::string format_int(int64_t value, const Spec& s, char default_align, size_t limit) {
    const bool negative = value < 0;
    const uint64_t mag = negative ? uint64_t(0) - uint64_t(value) : uint64_t(value);
    if (s.type == 'c') {
        if (s.sign) value_error("Sign not allowed with integer format specifier 'c'");
        if (value < 0 || value > 0x10FFFF) throw Fault(FaultKind::OverflowError, "%c arg not in range(0x110000)");
        std::string body;
        append_utf8(body, char32_t(value));
        return pad("", body, s, default_align, limit);
    }
    int base = 10;
    std::string prefix;
    switch (s.type) {
    case 'b': base = 2; prefix = "0b"; break;
    case 'o': base = 8; prefix = "0o"; break;
    case 'x': base = 16; prefix = "0x"; break;
    case 'X': base = 16; prefix = "0X"; break;
    default: break;
    }
    std::string digits = to_base(mag, base, s.type == 'X');
    if (s.precision > 0 && int64_t(digits.size()) < s.precision) {  // printf-style minimum digits
        check_width(s.precision, limit);
        digits.insert(0, size_t(s.precision) - digits.size(), '0');
    }
    digits = group(digits, s.grouping, base == 10 ? 3 : 4);
    return pad(sign_of(negative, s.sign) + (s.alt ? prefix : ""), digits, s, default_align, limit);
}

std::string strip_trailing_zeros(std::string body) {
    const size_t e = body.find_first_of("eE");
    std::string mant = body.substr(0, e), exp = e == std::string::npos ? "" : body.substr(e);
    if (mant.find('.') != std::string::npos) {
        while (!mant.empty() && mant.back() == '0') mant.pop_back();
        if (!mant.empty() && mant.back() == '.') mant.pop_back();
    }
    return mant + exp;
}

std::string format_float(double v, const Spec& s, char default_align, size_t limit) {
    const bool negative = std::signbit(v) && !std::isnan(v);
    const double a = std::fabs(v);
    const char type = s.type;
    const bool upper = type == 'E' || type == 'F' || type == 'G';
    std::string body;
    if (std::isnan(a) || std::isinf(a)) {
        body = std::isnan(a) ? "nan" : "inf";
        if (upper) body = py_upper(body);
        if (type == '%') body += '%';
    } else if (type == 0) {
        if (s.precision < 0) {
            body = float_repr(a);
        } else {
            const int64_t p = s.precision == 0 ? 1 : s.precision;
            const std::string sci = c_format(a, 'e', p - 1, false, limit);
            const int decpt = std::stoi(sci.substr(sci.find('e') + 1)) + 1;
            if (decpt <= -4 || decpt > p - 1) {
                body = s.alt ? sci : strip_trailing_zeros(sci);
            } else {
                body = c_format(a, 'f', p - decpt, s.alt, limit);
                if (!s.alt) body = strip_trailing_zeros(body);
                if (body.find('.') == std::string::npos) body += ".0";
            }
        }
    } else {
        const int64_t p = s.precision < 0 ? 6 : s.precision;
        if (type == '%') body = c_format(a * 100.0, 'f', p, s.alt, limit) + "%";
        else if (type == 'n') body = c_format(a, 'g', p, s.alt, limit);
        else body = c_format(a, type, p, s.alt, limit);
    }
    if (s.grouping && std::isfinite(a)) {
        const size_t end = body.find_first_not_of("0123456789");
        body = group(body.substr(0, end), s.grouping, 3) + (end == std::string::npos ? "" : body.substr(end));
    }
    return pad(sign_of(negative, s.sign), body, s, default_align, limit);
}

// Parses a format-spec mini-language string.
Spec parse_spec(const std::string& text) {
    Spec s;
    const std::u32string t = to_code_points(text);
    size_t i = 0;
    auto is_align = [](char32_t c) { return c == '<' || c == '>' || c == '^' || c == '='; };
    if (t.size() >= 2 && is_align(t[1])) {
        s.fill = t[0];
        s.align = char(t[1]);
        i = 2;
    } else if (!t.empty() && is_align(t[0])) {
        s.align = char(t[0]);
        i = 1;
    }
    if (i < t.size() && (t[i] == '+' || t[i] == '-' || t[i] == ' ')) s.sign = char(t[i++]);
    if (i < t.size() && t[i] == 'z') ++i;
    if (i < t.size() && t[i] == '#') { s.alt = true; ++i; }
    if (i < t.size() && t[i] == '0') { s.zero = true; ++i; }
    auto number = [&]() -> int64_t {
        int64_t n = -1;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
            n = (n < 0 ? 0 : n) * 10 + (t[i++] - '0');
            if (n > 1000000000) value_error("Too many decimal digits in format string");
        }
        return n;
    };
    s.width = number();
    if (i < t.size() && (t[i] == ',' || t[i] == '_')) s.grouping = char(t[i++]);
    if (i < t.size() && t[i] == '.') {
        ++i;
        s.precision = number();
        if (s.precision < 0) value_error("Format specifier missing precision");
    }
    if (i < t.size()) s.type = char(t[i++]);
    if (i < t.size()) value_error("Invalid format specifier");
    return s;
}

std::string ascii_repr(const Value& v, size_t limit) {
    const std::string r = py_repr(v, limit);
    std::string out;
    static const char* hex = "0123456789abcdef";
    for (size_t i = 0; i < r.size();) {
        const char32_t c = next_code_point(r, i);
        if (c < 0x80) out += char(c);
        else if (c < 0x100) { out += "\\x"; out += hex[c >> 4]; out += hex[c & 15]; }
        else if (c < 0x10000) { out += "\\u"; for (int k = 12; k >= 0; k -= 4) out += hex[(c >> k) & 15]; }
        else { out += "\\U"; for (int k = 28; k >= 0; k -= 4) out += hex[(c >> k) & 15]; }
    }
    return out;
}

}  // namespace

std::string format_value(const Value& v, const std::string& spec_text, size_t limit) {
    if (spec_text.empty()) return py_str(v, limit);
    const Spec s = parse_spec(spec_text);
    if (v.is_string()) {
        if (s.type && s.type != 's')
            value_error(std::string("Unknown format code '") + s.type + "' for object of type 'str'");
        if (s.sign) value_error("Sign not allowed in string format specifier");
        if (s.align == '=') value_error("'=' alignment not allowed in string format specifier");
        std::string body = s.precision >= 0 ? py_substr(v.str(), 0, s.precision) : v.str();
        return pad("", body, s, '<', limit);
    }
    if (v.is_integral()) {
        switch (s.type) {
        case 0: case 'b': case 'c': case 'd': case 'o': case 'x': case 'X': case 'n':
            if (s.precision >= 0) value_error("Precision not allowed in integer format specifier");
            return format_int(v.as_int(), s, '>', limit);
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%':
            return format_float(double(v.as_int()), s, '>', limit);
        default:
            value_error(std::string("Unknown format code '") + s.type + "' for object of type '" + type_name(v) + "'");
        }
    }
    if (v.is_float()) {
        switch (s.type) {
        case 0: case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%': case 'n':
            return format_float(v.as_float(), s, '>', limit);
        default:
            value_error(std::string("Unknown format code '") + s.type + "' for object of type 'float'");
        }
    }
    throw_type_error("unsupported format string passed to " + type_name(v) + ".__format__");
}

std::string percent_format(const std::string& fmt, const Value& args, size_t limit, bool escape_args) {
    std::vector<Value> positional;
    const Value* mapping = args.is_dict() ? &args : nullptr;
    const bool is_tuple = args.is_seq() && (args.seq_kind() == SeqKind::Tuple || args.seq_kind() == SeqKind::GroupTuple);
    if (is_tuple) positional = args.items();
    else positional.push_back(args);
    size_t next = 0;
    bool single_consumed = false;
    auto next_arg = [&]() -> const Value& {
        if (next >= positional.size()) throw_type_error("not enough arguments for format string");
        if (!is_tuple) single_consumed = true;
        return positional[next++];
    };
    std::string out;
    size_t i = 0;
    const size_t n = fmt.size();
    while (i < n) {
        const size_t pct = fmt.find('%', i);
        if (pct == std::string::npos) {
            out.append(fmt, i, std::string::npos);
            break;
        }
        out.append(fmt, i, pct - i);
        i = pct + 1;
        if (i >= n) value_error("incomplete format");
        if (fmt[i] == '%') {
            out += '%';
            ++i;
            continue;
        }
        const Value* arg = nullptr;
        Value keyed;
        if (fmt[i] == '(') {
            if (!mapping) throw_type_error("format requires a mapping");
            int depth = 1;
            const size_t start = ++i;
            while (i < n && depth > 0) {
                if (fmt[i] == '(') ++depth;
                else if (fmt[i] == ')') --depth;
                ++i;
            }
            if (depth > 0) value_error("incomplete format key");
            const std::string key = fmt.substr(start, i - 1 - start);
            const Value* found = mapping->dict().find(std::string_view(key));
            if (!found) throw Fault(FaultKind::KeyError, py_string_repr(key));
            keyed = *found;
            arg = &keyed;
        }
        Spec s;
        bool left = false;
        for (; i < n; ++i) {
            const char c = fmt[i];
            if (c == '-') left = true;
            else if (c == '+') s.sign = '+';
            else if (c == ' ') { if (s.sign != '+') s.sign = ' '; }
            else if (c == '#') s.alt = true;
            else if (c == '0') s.zero = true;
            else break;
        }
        auto star = [&]() -> int64_t {
            const Value& w = next_arg();
            if (!w.is_integral()) throw_type_error("* wants int");
            return w.as_int();
        };
        if (i < n && fmt[i] == '*') {
            ++i;
            s.width = star();
            if (s.width < 0) { left = true; s.width = -s.width; }
        } else {
            while (i < n && fmt[i] >= '0' && fmt[i] <= '9') {
                s.width = (s.width < 0 ? 0 : s.width) * 10 + (fmt[i++] - '0');
                if (s.width > int64_t(limit)) check_text_size(size_t(s.width), limit);
            }
        }
        if (i < n && fmt[i] == '.') {
            ++i;
            s.precision = 0;
            if (i < n && fmt[i] == '*') {
                ++i;
                s.precision = std::max<int64_t>(0, star());
            } else {
                while (i < n && fmt[i] >= '0' && fmt[i] <= '9') {
                    s.precision = s.precision * 10 + (fmt[i++] - '0');
                    if (s.precision > int64_t(limit)) check_text_size(size_t(s.precision), limit);
                }
            }
        }
        while (i < n && (fmt[i] == 'h' || fmt[i] == 'l' || fmt[i] == 'L')) ++i;
        if (i >= n) value_error("incomplete format");
        const char conv = fmt[i++];
        if (!arg) arg = &next_arg();
        s.align = left ? '<' : '>';
        if (left) s.zero = false;
        const bool zero = s.zero;
        switch (conv) {
        case '%': out += '%'; break;
        case 's':
        case 'r':
        case 'a': {
            std::string text = conv == 's' ? py_str(*arg, limit) : conv == 'r' ? py_repr(*arg, limit) : ascii_repr(*arg, limit);
            if (s.precision >= 0) text = py_substr(text, 0, s.precision);
            if (escape_args && !(conv == 's' && arg->is_markup())) text = html_escape(text);
            Spec t = s;
            t.zero = false;
            out += pad("", text, t, '>', limit);
            break;
        }
        case 'd':
        case 'i':
        case 'u': {
            if (arg->is_undefined()) fail_undefined(*arg);
            if (!arg->is_number())
                throw_type_error(std::string("%") + conv + " format: a real number is required, not " + type_name(*arg));
            const int64_t value = arg->is_float() ? float_to_int(arg->as_float()) : arg->as_int();
            Spec t = s;
            t.type = 'd';
            t.zero = zero;
            t.align = left ? '<' : 0;
            out += format_int(value, t, '>', limit);
            break;
        }
        case 'o':
        case 'x':
        case 'X': {
            if (arg->is_undefined()) fail_undefined(*arg);
            if (!arg->is_integral())
                throw_type_error(std::string("%") + conv + " format: an integer is required, not " + type_name(*arg));
            Spec t = s;
            t.type = conv;
            t.align = left ? '<' : 0;
            out += format_int(arg->as_int(), t, '>', limit);
            break;
        }
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': {
            if (arg->is_undefined()) fail_undefined(*arg);
            if (!arg->is_number()) throw_type_error("must be real number, not " + type_name(*arg));
            Spec t = s;
            t.type = conv;
            t.align = left ? '<' : 0;
            out += format_float(arg->as_float(), t, '>', limit);
            break;
        }
        case 'c': {
            std::string ch;
            if (arg->is_integral()) {
                if (arg->as_int() < 0 || arg->as_int() > 0x10FFFF)
                    throw Fault(FaultKind::OverflowError, "%c arg not in range(0x110000)");
                append_utf8(ch, char32_t(arg->as_int()));
            } else if (arg->is_string() && code_point_count(arg->str()) == 1) {
                ch = arg->str();
            } else {
                throw_type_error("%c requires int or char");
            }
            Spec t = s;
            t.zero = false;
            out += pad("", ch, t, '>', limit);
            break;
        }
        default: {
            char buf[96];
            std::snprintf(buf, sizeof buf, "unsupported format character '%c' (0x%x) at index %zu", conv,
                          unsigned(static_cast<unsigned char>(conv)), i - 1);
            value_error(buf);
        }
        }
        check_text_size(out.size(), limit);
    }
    // Python treats any non-tuple, non-str argument with __getitem__ as a mapping here, and a mapping
    // may go unused: '%s' % [1] fails, 'abc' % [1] does not.
    const bool mapping_like = !is_tuple && (args.is_dict() || args.is_seq() || args.is_undefined());
    const bool leftover = is_tuple ? next < positional.size() : (!single_consumed && !mapping_like);
    if (leftover) throw_type_error("not all arguments converted during string formatting");
    check_text_size(out.size(), limit);
    return out;
}

namespace {

struct FormatState {
    const CallArgs& args;
    const FieldLookup& lookup;
    size_t limit;
    bool escape;
    int auto_index = 0;  // -1 once manual numbering was used
    bool manual = false;
};

Value resolve_field(FormatState& st, const std::string& field) {
    size_t i = 0;
    while (i < field.size() && field[i] != '.' && field[i] != '[') ++i;
    const std::string first = field.substr(0, i);
    Value obj;
    if (first.empty()) {
        if (st.manual) value_error("cannot switch from manual field specification to automatic field numbering");
        const int idx = st.auto_index++;
        if (size_t(idx) >= st.args.positional.size())
            throw Fault(FaultKind::IndexError,
                        "Replacement index " + std::to_string(idx) + " out of range for positional args tuple");
        obj = st.args.positional[size_t(idx)];
    } else if (first.find_first_not_of("0123456789") == std::string::npos) {
        if (st.auto_index > 0) value_error("cannot switch from automatic field numbering to manual field specification");
        st.manual = true;
        const size_t idx = first.size() > 9 ? SIZE_MAX : size_t(std::stoul(first));
        if (idx >= st.args.positional.size())
            throw Fault(FaultKind::IndexError,
                        "Replacement index " + first + " out of range for positional args tuple");
        obj = st.args.positional[idx];
    } else {
        const Value* kw = st.args.keyword(first);
        if (!kw) throw Fault(FaultKind::KeyError, py_string_repr(first));
        obj = *kw;
    }
    while (i < field.size()) {
        if (field[i] == '.') {
            size_t j = ++i;
            while (j < field.size() && field[j] != '.' && field[j] != '[') ++j;
            if (j == i) value_error("Empty attribute in format string");
            obj = st.lookup(obj, Value::string(field.substr(i, j - i)), true);
            i = j;
        } else if (field[i] == '[') {
            const size_t close = field.find(']', i);
            if (close == std::string::npos) value_error("Missing ']' in format string");
            const std::string key = field.substr(i + 1, close - i - 1);
            if (key.empty()) value_error("Empty attribute in format string");
            const bool numeric = key.find_first_not_of("0123456789") == std::string::npos && key.size() < 18;
            obj = st.lookup(obj, numeric ? Value::integer(std::stoll(key)) : Value::string(key), false);
            i = close + 1;
            if (i < field.size() && field[i] != '.' && field[i] != '[')
                value_error("Only '.' or '[' may follow ']' in format field specifier");
        } else {
            value_error("Only '.' or '[' may follow ']' in format field specifier");
        }
    }
    return obj;
}

std::string expand(FormatState& st, const std::string& fmt, int recursion);

std::string render_field(FormatState& st, const std::string& field_text, int recursion) {
    // field_name [!conversion] [:format_spec]; brackets protect ':' and '!' in keys.
    size_t i = 0;
    while (i < field_text.size() && field_text[i] != '!' && field_text[i] != ':') {
        if (field_text[i] == '[') {
            const size_t close = field_text.find(']', i);
            i = close == std::string::npos ? field_text.size() : close + 1;
        } else {
            ++i;
        }
    }
    const std::string name = field_text.substr(0, i);
    char conversion = 0;
    if (i < field_text.size() && field_text[i] == '!') {
        if (i + 1 >= field_text.size()) value_error("end of string while looking for conversion specifier");
        conversion = field_text[i + 1];
        i += 2;
        if (i < field_text.size() && field_text[i] != ':') value_error("expected ':' after conversion specifier");
    }
    std::string spec;
    if (i < field_text.size() && field_text[i] == ':') spec = expand(st, field_text.substr(i + 1), recursion - 1);
    Value v = resolve_field(st, name);
    switch (conversion) {
    case 0: break;
    case 's': v = Value::string(py_str(v, st.limit)); break;
    case 'r': v = Value::string(py_repr(v, st.limit)); break;
    case 'a': v = Value::string(ascii_repr(v, st.limit)); break;
    default: value_error(std::string("Unknown conversion specifier ") + conversion);
    }
    std::string text = format_value(v, spec, st.limit);
    return st.escape && !v.is_markup() ? html_escape(text) : text;
}

std::string expand(FormatState& st, const std::string& fmt, int recursion) {
    if (recursion < 0) value_error("Max string recursion exceeded");
    std::string out;
    size_t i = 0;
    while (i < fmt.size()) {
        const char c = fmt[i];
        if (c == '{') {
            if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
                out += '{';
                i += 2;
                continue;
            }
            int depth = 1;
            size_t j = i + 1;
            while (j < fmt.size() && depth > 0) {
                if (fmt[j] == '{') ++depth;
                else if (fmt[j] == '}') --depth;
                if (depth > 0) ++j;
            }
            if (depth > 0) value_error("expected '}' before end of string");
            out += render_field(st, fmt.substr(i + 1, j - i - 1), recursion);
            i = j + 1;
        } else if (c == '}') {
            if (i + 1 < fmt.size() && fmt[i + 1] == '}') {
                out += '}';
                i += 2;
                continue;
            }
            value_error("Single '}' encountered in format string");
        } else {
            out += c;
            ++i;
        }
        check_text_size(out.size(), st.limit);
    }
    return out;
}

}  // namespace

std::string str_format(const std::string& fmt, const CallArgs& args, const FieldLookup& lookup, size_t limit,
                       bool escape_fields) {
    FormatState st{args, lookup, limit, escape_fields};
    return expand(st, fmt, 2);
}

}  // namespace folio::jinja
