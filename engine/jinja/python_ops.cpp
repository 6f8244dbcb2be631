#include "engine/jinja/python_ops.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "engine/jinja/python_format.h"
#include "engine/jinja/python_text.h"

namespace folio::jinja {

std::string type_name(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::Missing:
    case Value::Kind::Undefined: return "Undefined";
    case Value::Kind::None: return "NoneType";
    case Value::Kind::Bool: return "bool";
    case Value::Kind::Int: return "int";
    case Value::Kind::Float: return "float";
    case Value::Kind::String: return v.is_markup() ? "Markup" : "str";
    case Value::Kind::Dict: return "dict";
    case Value::Kind::Object: return v.obj()->type_name();
    case Value::Kind::Seq:
        switch (v.seq_kind()) {
        case SeqKind::List: return "list";
        case SeqKind::Tuple: return "tuple";
        case SeqKind::GroupTuple: return "_GroupTuple";
        case SeqKind::Range: return "range";
        case SeqKind::DictKeys: return "dict_keys";
        case SeqKind::DictValues: return "dict_values";
        case SeqKind::DictItems: return "dict_items";
        }
    }
    return "object";
}

bool truthy(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::Missing:
    case Value::Kind::Undefined:
    case Value::Kind::None: return false;
    case Value::Kind::Bool: return v.as_bool();
    case Value::Kind::Int: return v.as_int() != 0;
    case Value::Kind::Float: return v.as_float() != 0.0;
    case Value::Kind::String: return !v.str().empty();
    case Value::Kind::Seq: return !v.items().empty();
    case Value::Kind::Dict: return !v.dict().items.empty();
    case Value::Kind::Object: return v.obj()->truthy();
    }
    return false;
}

namespace {

bool tuple_like(const Value& v) {
    return v.is_seq() && (v.seq_kind() == SeqKind::Tuple || v.seq_kind() == SeqKind::GroupTuple);
}

// Exact comparison of an int with a float, as Python does (no rounding of large ints).
int compare_int_float(int64_t i, double f) {
    if (std::isnan(f)) return 2;  // unordered
    if (f >= 9.3e18) return -1;
    if (f <= -9.3e18) return 1;
    const double t = std::trunc(f);
    const auto ti = static_cast<int64_t>(t);
    if (i < ti) return -1;
    if (i > ti) return 1;
    if (f > t) return -1;
    if (f < t) return 1;
    return 0;
}

// -1/0/1 for numbers, 2 when unordered (NaN).
int compare_numbers(const Value& a, const Value& b) {
    if (a.is_integral() && b.is_integral()) {
        const int64_t x = a.as_int(), y = b.as_int();
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a.is_integral()) return compare_int_float(a.as_int(), b.as_float());
    if (b.is_integral()) {
        const int r = compare_int_float(b.as_int(), a.as_float());
        return r == 2 ? 2 : -r;
    }
    const double x = a.as_float(), y = b.as_float();
    if (std::isnan(x) || std::isnan(y)) return 2;
    return x < y ? -1 : x > y ? 1 : 0;
}

bool same_sequence_type(const Value& a, const Value& b) {
    if (!a.is_seq() || !b.is_seq()) return false;
    if (tuple_like(a) && tuple_like(b)) return true;
    return a.seq_kind() == b.seq_kind();
}

bool contains_equal(const std::vector<Value>& items, const Value& x) {
    for (const Value& item : items)
        if (py_equal(item, x)) return true;
    return false;
}

}  // namespace

bool py_equal(const Value& a, const Value& b) {
    if (a.is_undefined() || b.is_undefined() || a.is_missing() || b.is_missing())
        return (a.is_undefined() || a.is_missing()) && (b.is_undefined() || b.is_missing());
    if (a.is_number() && b.is_number()) return compare_numbers(a, b) == 0;
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
    case Value::Kind::None: return true;
    case Value::Kind::String: return a.identity() == b.identity() || a.str() == b.str();
    case Value::Kind::Object: return a.identity() == b.identity();
    case Value::Kind::Dict: {
        if (a.identity() == b.identity()) return true;
        const auto& x = a.dict().items;
        if (x.size() != b.dict().items.size()) return false;
        for (const auto& [k, v] : x) {
            const Value* other = b.dict().find(k);
            if (!other || !py_equal(v, *other)) return false;
        }
        return true;
    }
    case Value::Kind::Seq: {
        if (!same_sequence_type(a, b)) return false;
        const SeqKind kind = a.seq_kind();
        if (kind == SeqKind::DictValues) return a.identity() == b.identity();
        const auto& x = a.items();
        const auto& y = b.items();
        if (x.size() != y.size()) return false;
        if (kind == SeqKind::DictKeys || kind == SeqKind::DictItems) {  // set semantics
            for (const Value& item : x)
                if (!contains_equal(y, item)) return false;
            return true;
        }
        for (size_t i = 0; i < x.size(); ++i)
            if (!py_equal(x[i], y[i])) return false;
        return true;
    }
    default: return false;
    }
}

const char* compare_op_symbol(CompareOp op) {
    switch (op) {
    case CompareOp::Eq: return "==";
    case CompareOp::Ne: return "!=";
    case CompareOp::Lt: return "<";
    case CompareOp::Le: return "<=";
    case CompareOp::Gt: return ">";
    case CompareOp::Ge: return ">=";
    }
    return "?";
}

namespace {
bool apply_order(CompareOp op, int c) {
    if (c == 2) return false;  // NaN: every ordering is false
    switch (op) {
    case CompareOp::Lt: return c < 0;
    case CompareOp::Le: return c <= 0;
    case CompareOp::Gt: return c > 0;
    case CompareOp::Ge: return c >= 0;
    default: return false;
    }
}
}  // namespace

bool py_compare(CompareOp op, const Value& a, const Value& b) {
    if (op == CompareOp::Eq) return py_equal(a, b);
    if (op == CompareOp::Ne) return !py_equal(a, b);
    if (a.is_undefined()) fail_undefined(a);
    if (b.is_undefined()) fail_undefined(b);
    if (a.is_number() && b.is_number()) return apply_order(op, compare_numbers(a, b));
    if (a.is_string() && b.is_string()) {
        const int c = a.str().compare(b.str());
        return apply_order(op, c < 0 ? -1 : c > 0 ? 1 : 0);
    }
    if (a.is_seq() && b.is_seq() && same_sequence_type(a, b) &&
        (a.seq_kind() == SeqKind::List || tuple_like(a))) {
        const auto& x = a.items();
        const auto& y = b.items();
        for (size_t i = 0; i < x.size() && i < y.size(); ++i)
            if (!py_equal(x[i], y[i])) return py_compare(op, x[i], y[i]);
        return apply_order(op, x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0);
    }
    throw_type_error(std::string("'") + compare_op_symbol(op) + "' not supported between instances of '" +
                     type_name(a) + "' and '" + type_name(b) + "'");
}

bool py_less(const Value& a, const Value& b) { return py_compare(CompareOp::Lt, a, b); }

namespace {

[[noreturn]] void overflow() {
    throw Fault(FaultKind::OverflowError, "integer result does not fit in 64 bits (template integers are 64-bit)");
}

[[noreturn]] void unsupported(const char* op, const Value& a, const Value& b) {
    throw_type_error(std::string("unsupported operand type(s) for ") + op + ": '" + type_name(a) + "' and '" +
                     type_name(b) + "'");
}

void check_size(size_t n, size_t limit, const char* what) {
    if (n > limit)
        throw Fault(FaultKind::LimitExceeded, std::string("a ") + what + " of " + std::to_string(n) +
                                                  " exceeds the render limit of " + std::to_string(limit));
}

Value repeat(const Value& seq, int64_t times, size_t limit) {
    if (times < 0) times = 0;
    if ((seq.is_string() && seq.str().empty()) || (seq.is_seq() && seq.items().empty())) times = 0;
    if (seq.is_string()) {
        const std::string& s = seq.str();
        if (times > 0 && !s.empty()) check_size(s.size() * std::min<uint64_t>(uint64_t(times), limit + 1), limit, "string");
        std::string out;
        out.reserve(s.size() * size_t(times));
        for (int64_t i = 0; i < times; ++i) out += s;
        return seq.is_markup() ? Value::markup(std::move(out)) : Value::string(std::move(out));
    }
    const auto& items = seq.items();
    if (times > 0 && !items.empty())
        check_size(items.size() * std::min<uint64_t>(uint64_t(times), limit + 1), limit / 16, "list");
    std::vector<Value> out;
    out.reserve(items.size() * size_t(times));
    for (int64_t i = 0; i < times; ++i) out.insert(out.end(), items.begin(), items.end());
    return Value::sequence(std::move(out), seq.seq_kind() == SeqKind::List ? SeqKind::List : SeqKind::Tuple);
}

bool repeatable(const Value& v) {
    return v.is_string() || (v.is_seq() && (v.seq_kind() == SeqKind::List || tuple_like(v)));
}

// Python's float divmod: the quotient is floored, the remainder takes the divisor's sign.
void float_divmod(double x, double y, double& div, double& mod) {
    mod = std::fmod(x, y);
    div = (x - mod) / y;
    if (mod != 0.0) {
        if ((y < 0) != (mod < 0)) {
            mod += y;
            div -= 1.0;
        }
    } else {
        mod = std::copysign(0.0, y);
    }
    if (div != 0.0) {
        const double floordiv = std::floor(div);
        div = (div - floordiv > 0.5) ? floordiv + 1.0 : floordiv;
    } else {
        div = std::copysign(0.0, x / y);
    }
}

Value int_pow(int64_t base, int64_t exp) {
    int64_t result = 1;
    while (exp > 0) {
        if (exp & 1)
            if (__builtin_mul_overflow(result, base, &result)) overflow();
        exp >>= 1;
        if (exp > 0 && __builtin_mul_overflow(base, base, &base)) overflow();
    }
    return Value::integer(result);
}

Value float_result(double r) {
    if (std::isinf(r)) throw Fault(FaultKind::OverflowError, "(34, 'Numerical result out of range')");
    return Value::number(r);
}

}  // namespace

Value py_binary(BinaryOp op, const Value& a, const Value& b, size_t limit) {
    // str % x is str's own operation, whatever x is (an Undefined right operand included).
    if (op == BinaryOp::Mod && a.is_string()) {
        if (a.is_markup()) return Value::markup(percent_format(a.str(), b, limit, true));
        return Value::string(percent_format(a.str(), b, limit));
    }
    if (a.is_undefined()) fail_undefined(a);
    if (b.is_undefined()) fail_undefined(b);
    const bool ints = a.is_integral() && b.is_integral();
    const bool nums = a.is_number() && b.is_number();
    switch (op) {
    case BinaryOp::Add:
        if (ints) {
            int64_t r;
            if (__builtin_add_overflow(a.as_int(), b.as_int(), &r)) overflow();
            return Value::integer(r);
        }
        if (nums) return Value::number(a.as_float() + b.as_float());
        if (a.is_markup() || b.is_markup()) {  // Markup + str escapes the str (and the other way round)
            if (!a.is_string() || !b.is_string()) unsupported("+", a, b);
            std::string out = a.is_markup() ? a.str() : html_escape(a.str());
            out += b.is_markup() ? b.str() : html_escape(b.str());
            check_size(out.size(), limit, "string");
            return Value::markup(std::move(out));
        }
        if (a.is_string()) {
            if (!b.is_string()) throw_type_error("can only concatenate str (not \"" + type_name(b) + "\") to str");
            check_size(a.str().size() + b.str().size(), limit, "string");
            return Value::string(a.str() + b.str());
        }
        if (a.is_seq() && (a.seq_kind() == SeqKind::List || tuple_like(a))) {
            const bool list = a.seq_kind() == SeqKind::List;
            if (!b.is_seq() || (list ? b.seq_kind() != SeqKind::List : !tuple_like(b)))
                throw_type_error(std::string("can only concatenate ") + (list ? "list" : "tuple") + " (not \"" +
                                 type_name(b) + "\") to " + (list ? "list" : "tuple"));
            check_size(a.items().size() + b.items().size(), limit / 16, "list");
            std::vector<Value> out = a.items();
            out.insert(out.end(), b.items().begin(), b.items().end());
            return Value::sequence(std::move(out), list ? SeqKind::List : SeqKind::Tuple);
        }
        unsupported("+", a, b);
    case BinaryOp::Sub:
        if (ints) {
            int64_t r;
            if (__builtin_sub_overflow(a.as_int(), b.as_int(), &r)) overflow();
            return Value::integer(r);
        }
        if (nums) return Value::number(a.as_float() - b.as_float());
        unsupported("-", a, b);
    case BinaryOp::Mul:
        if (ints) {
            int64_t r;
            if (__builtin_mul_overflow(a.as_int(), b.as_int(), &r)) overflow();
            return Value::integer(r);
        }
        if (nums) return Value::number(a.as_float() * b.as_float());
        if (repeatable(a)) {
            if (b.is_integral()) return repeat(a, b.as_int(), limit);
            throw_type_error("can't multiply sequence by non-int of type '" + type_name(b) + "'");
        }
        if (repeatable(b)) {
            if (a.is_integral()) return repeat(b, a.as_int(), limit);
            throw_type_error("can't multiply sequence by non-int of type '" + type_name(a) + "'");
        }
        unsupported("*", a, b);
    case BinaryOp::Div:
        if (nums) {
            if (b.as_float() == 0.0)
                throw Fault(FaultKind::ZeroDivisionError, ints ? "division by zero" : "float division by zero");
            return float_result(a.as_float() / b.as_float());
        }
        unsupported("/", a, b);
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod:
        if (ints) {
            const int64_t x = a.as_int(), y = b.as_int();
            if (y == 0)
                throw Fault(FaultKind::ZeroDivisionError,
                            op == BinaryOp::Mod ? "integer modulo by zero" : "integer division or modulo by zero");
            if (x == INT64_MIN && y == -1) {
                if (op == BinaryOp::Mod) return Value::integer(0);
                overflow();
            }
            int64_t q = x / y, r = x % y;
            if (r != 0 && ((r < 0) != (y < 0))) {
                r += y;
                q -= 1;
            }
            return Value::integer(op == BinaryOp::Mod ? r : q);
        }
        if (nums) {
            const double y = b.as_float();
            if (y == 0.0)
                throw Fault(FaultKind::ZeroDivisionError,
                            op == BinaryOp::Mod ? "float modulo" : "float floor division by zero");
            double div, mod;
            float_divmod(a.as_float(), y, div, mod);
            return Value::number(op == BinaryOp::Mod ? mod : div);
        }
        unsupported(op == BinaryOp::Mod ? "%" : "//", a, b);
    case BinaryOp::Pow:
        if (ints && b.as_int() >= 0) return int_pow(a.as_int(), b.as_int());
        if (nums) {
            const double x = a.as_float(), y = b.as_float();
            if (x == 0.0 && y < 0.0)
                throw Fault(FaultKind::ZeroDivisionError, "0.0 cannot be raised to a negative power");
            if (x < 0.0 && y != std::floor(y) && std::isfinite(y))
                throw_value_error("a negative number raised to a fractional power is complex (not supported)");
            return float_result(std::pow(x, y));
        }
        unsupported("** or pow()", a, b);
    }
    unsupported("?", a, b);
}

Value py_negate(const Value& v) {
    if (v.is_undefined()) fail_undefined(v);
    if (v.is_integral()) {
        if (v.as_int() == INT64_MIN) overflow();
        return Value::integer(-v.as_int());
    }
    if (v.is_float()) return Value::number(-v.as_float());
    throw_type_error("bad operand type for unary -: '" + type_name(v) + "'");
}

Value py_positive(const Value& v) {
    if (v.is_undefined()) fail_undefined(v);
    if (v.is_integral()) return Value::integer(v.as_int());
    if (v.is_float()) return v;
    throw_type_error("bad operand type for unary +: '" + type_name(v) + "'");
}

void require_hashable(const Value& v) {
    if (v.is_dict()) throw_type_error("unhashable type: 'dict'");
    if (v.is_seq()) {
        if (tuple_like(v)) {
            for (const Value& item : v.items()) require_hashable(item);
            return;
        }
        if (v.seq_kind() != SeqKind::Range) throw_type_error("unhashable type: '" + type_name(v) + "'");
    }
}

bool py_contains(const Value& container, const Value& item) {
    switch (container.kind()) {
    case Value::Kind::String:
        if (!item.is_string())
            throw_type_error("'in <string>' requires string as left operand, not " + type_name(item));
        return container.str().find(item.str()) != std::string::npos;
    case Value::Kind::Seq: return contains_equal(container.items(), item);
    case Value::Kind::Dict:
        require_hashable(item);
        return container.dict().find(item) != nullptr;
    case Value::Kind::Undefined:
    case Value::Kind::Missing: return false;
    case Value::Kind::Object:
        if (container.obj()->iterable()) return contains_equal(container.obj()->iterate(), item);
        [[fallthrough]];
    default: throw_type_error("argument of type '" + type_name(container) + "' is not iterable");
    }
}

std::optional<int64_t> py_len(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::String: return int64_t(code_point_count(v.str()));
    case Value::Kind::Seq: return int64_t(v.items().size());
    case Value::Kind::Dict: return int64_t(v.dict().items.size());
    case Value::Kind::Undefined:
    case Value::Kind::Missing: return 0;
    case Value::Kind::Object: return v.obj()->length();
    default: return std::nullopt;
    }
}

bool is_iterable(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::String:
    case Value::Kind::Seq:
    case Value::Kind::Dict:
    case Value::Kind::Undefined: return true;
    case Value::Kind::Object: return v.obj()->iterable();
    default: return false;
    }
}

int64_t float_to_int(double d) {
    if (std::isnan(d)) throw_value_error("cannot convert float NaN to integer");
    if (std::isinf(d)) throw Fault(FaultKind::OverflowError, "cannot convert float infinity to integer");
    const double t = std::trunc(d);
    if (t >= 9.2233720368547758e18 || t < -9.2233720368547758e18) overflow();
    return static_cast<int64_t>(t);
}

namespace {
std::string strip_ws(const std::string& text) { return py_strip(text, std::nullopt, true, true); }

int digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
    return 99;
}
}  // namespace

std::optional<int64_t> parse_python_int(const std::string& text, int base) {
    const std::string s = strip_ws(text);
    size_t i = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    auto prefix = [&](char p) {
        return i + 1 < s.size() && s[i] == '0' && (s[i + 1] == p || s[i + 1] == char(p - 32));
    };
    bool had_prefix = false;
    if ((base == 0 || base == 16) && prefix('x')) { base = 16; i += 2; had_prefix = true; }
    else if ((base == 0 || base == 8) && prefix('o')) { base = 8; i += 2; had_prefix = true; }
    else if ((base == 0 || base == 2) && prefix('b')) { base = 2; i += 2; had_prefix = true; }
    bool zero_prefixed_decimal = false;
    if (base == 0) {
        base = 10;
        zero_prefixed_decimal = i < s.size() && s[i] == '0';
    }
    if (base < 2 || base > 36) return std::nullopt;
    if (had_prefix && i < s.size() && s[i] == '_') ++i;  // "0x_ff" is allowed
    if (i >= s.size()) return std::nullopt;
    uint64_t value = 0;
    bool last_underscore = true, nonzero = false;
    for (; i < s.size(); ++i) {
        if (s[i] == '_') {
            if (last_underscore) return std::nullopt;
            last_underscore = true;
            continue;
        }
        const int d = digit_value(s[i]);
        if (d >= base) return std::nullopt;
        if (d != 0) nonzero = true;
        if (value > (UINT64_MAX - uint64_t(d)) / uint64_t(base)) return std::nullopt;
        value = value * uint64_t(base) + uint64_t(d);
        last_underscore = false;
    }
    if (last_underscore) return std::nullopt;
    if (zero_prefixed_decimal && nonzero) return std::nullopt;  // "010" is not valid with base 0
    if (negative) {
        if (value > uint64_t(INT64_MAX) + 1) return std::nullopt;
        return value == uint64_t(INT64_MAX) + 1 ? INT64_MIN : -int64_t(value);
    }
    if (value > uint64_t(INT64_MAX)) return std::nullopt;
    return int64_t(value);
}

std::optional<double> parse_python_float(const std::string& text) {
    const std::string s = strip_ws(text);
    if (s.empty()) return std::nullopt;
    std::string lower = py_lower(s);
    size_t sign = (lower[0] == '+' || lower[0] == '-') ? 1 : 0;
    const std::string body = lower.substr(sign);
    const double sgn = (sign && lower[0] == '-') ? -1.0 : 1.0;
    if (body == "inf" || body == "infinity") return sgn * HUGE_VAL;
    if (body == "nan") return std::nan("");
    // digits with single underscores between them, an optional fraction, an optional exponent
    std::string clean = sign && lower[0] == '-' ? "-" : "";
    size_t i = 0;
    auto digits = [&](bool required) {
        const size_t start = i;
        bool last_underscore = true;
        while (i < body.size() && ((body[i] >= '0' && body[i] <= '9') || body[i] == '_')) {
            if (body[i] == '_') {
                if (last_underscore) return false;
                last_underscore = true;
            } else {
                clean += body[i];
                last_underscore = false;
            }
            ++i;
        }
        if (i > start && last_underscore) return false;
        return !required || i > start;
    };
    if (!digits(false)) return std::nullopt;
    const bool int_part = !clean.empty() && clean != "-";
    bool frac_part = false;
    if (i < body.size() && body[i] == '.') {
        clean += '.';
        ++i;
        const size_t before = clean.size();
        if (!digits(false)) return std::nullopt;
        frac_part = clean.size() > before;
    }
    if (!int_part && !frac_part) return std::nullopt;
    if (i < body.size() && body[i] == 'e') {
        clean += 'e';
        ++i;
        if (i < body.size() && (body[i] == '+' || body[i] == '-')) clean += body[i++];
        if (!digits(true)) return std::nullopt;
    }
    if (i != body.size()) return std::nullopt;
    errno = 0;
    return std::strtod(clean.c_str(), nullptr);
}

}  // namespace folio::jinja
