#include "engine/jinja/python_repr.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "engine/jinja/python_text.h"

namespace folio::jinja {

void check_text_size(size_t size, size_t limit) {
    if (size > limit)
        throw Fault(FaultKind::LimitExceeded,
                    "text of more than " + std::to_string(limit) + " bytes (the render output limit)");
}

std::string float_repr(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    if (d == 0.0) return std::signbit(d) ? "-0.0" : "0.0";
    char buf[64];
    // Shortest round-trip digits, in scientific form: d.ddde±x
    auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    std::string sign;
    if (sci[0] == '-') {
        sign = "-";
        sci.erase(0, 1);
    }
    const size_t e = sci.find('e');
    std::string digits = sci.substr(0, e);
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    const int exp10 = std::stoi(sci.substr(e + 1));
    const int decpt = exp10 + 1;  // digits are 0.d1d2... × 10^decpt
    std::string out = sign;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out += "0.";
            out.append(size_t(-decpt), '0');
            out += digits;
        } else if (size_t(decpt) >= digits.size()) {
            out += digits;
            out.append(size_t(decpt) - digits.size(), '0');
            out += ".0";
        } else {
            out += digits.substr(0, size_t(decpt));
            out += '.';
            out += digits.substr(size_t(decpt));
        }
        return out;
    }
    out += digits[0];
    if (digits.size() > 1) {
        out += '.';
        out += digits.substr(1);
    }
    out += 'e';
    out += exp10 < 0 ? '-' : '+';
    const int a = exp10 < 0 ? -exp10 : exp10;
    if (a < 10) out += '0';
    out += std::to_string(a);
    return out;
}

namespace {

void append_items(std::string& out, const std::vector<Value>& items, size_t limit, int depth) {
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        append_repr(out, items[i], limit, depth + 1);
        check_text_size(out.size(), limit);
    }
}

}  // namespace

void append_repr(std::string& out, const Value& v, size_t limit, int depth) {
    if (depth > kMaxReprDepth)
        throw Fault(FaultKind::LimitExceeded, "a value nested too deeply to print");
    switch (v.kind()) {
    case Value::Kind::Missing:
    case Value::Kind::Undefined: out += "Undefined"; break;
    case Value::Kind::String:
        if (v.is_markup()) out += "Markup(" + py_string_repr(v.str()) + ")";
        else out += py_string_repr(v.str());
        break;
    case Value::Kind::Seq: {
        const auto& items = v.items();
        switch (v.seq_kind()) {
        case SeqKind::List:
            out += '[';
            append_items(out, items, limit, depth);
            out += ']';
            break;
        case SeqKind::Tuple:
        case SeqKind::GroupTuple:
            out += '(';
            append_items(out, items, limit, depth);
            if (items.size() == 1) out += ',';
            out += ')';
            break;
        case SeqKind::Range: {
            const auto& s = v.seq();
            out += "range(" + std::to_string(s.range_start) + ", " + std::to_string(s.range_stop);
            if (s.range_step != 1) out += ", " + std::to_string(s.range_step);
            out += ')';
            break;
        }
        case SeqKind::DictKeys:
        case SeqKind::DictValues:
        case SeqKind::DictItems:
            out += v.seq_kind() == SeqKind::DictKeys ? "dict_keys([" : v.seq_kind() == SeqKind::DictValues ? "dict_values([" : "dict_items([";
            append_items(out, items, limit, depth);
            out += "])";
            break;
        }
        break;
    }
    case Value::Kind::Dict: {
        out += '{';
        bool first = true;
        for (const auto& [key, value] : v.dict().items) {
            if (!first) out += ", ";
            first = false;
            append_repr(out, key, limit, depth + 1);
            out += ": ";
            append_repr(out, value, limit, depth + 1);
            check_text_size(out.size(), limit);
        }
        out += '}';
        break;
    }
    case Value::Kind::Object: v.obj()->append_repr(out, limit, depth + 1); break;
    default: append_str(out, v, limit); break;
    }
    check_text_size(out.size(), limit);
}

void append_str(std::string& out, const Value& v, size_t limit) {
    switch (v.kind()) {
    case Value::Kind::Missing:
    case Value::Kind::Undefined: break;
    case Value::Kind::None: out += "None"; break;
    case Value::Kind::Bool: out += v.as_bool() ? "True" : "False"; break;
    case Value::Kind::Int: out += std::to_string(v.as_int()); break;
    case Value::Kind::Float: out += float_repr(v.as_float()); break;
    case Value::Kind::String: out += v.str(); break;
    default: append_repr(out, v, limit, 0); break;
    }
    check_text_size(out.size(), limit);
}

std::string py_str(const Value& v, size_t limit) {
    if (v.is_string()) return v.str();
    std::string out;
    append_str(out, v, limit);
    return out;
}

std::string py_repr(const Value& v, size_t limit) {
    std::string out;
    append_repr(out, v, limit, 0);
    return out;
}

}  // namespace folio::jinja
