// The tests of Jinja2 3.1 (`x is defined`, `x is divisibleby 3`, ...), each as the Python original.
#include "engine/jinja/python_ops.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/python_text.h"
#include "engine/jinja/template_builtins.h"
#include "engine/jinja/template_call_args.h"
#include "engine/jinja/template_objects.h"
#include "engine/jinja/template_renderer.h"

namespace folio::jinja {

namespace {

void no_args(const CallArgs& a, const char* name) {
    if (!a.positional.empty() || !a.keywords.empty())
        throw_type_error(std::string(name) + "() takes 1 positional argument but " +
                         std::to_string(1 + a.positional.size() + a.keywords.size()) + " were given");
}

const Value& one_arg(const CallArgs& a, const char* name, const char* param) {
    auto b = bind_args(a, name, {param});
    if (!b[0]) throw_type_error(std::string(name) + "() missing 1 required positional argument: '" + param + "'");
    for (const auto& v : a.positional) return v;
    return *a.keyword(param);
}

bool mod_equals(Renderer& r, const Value& v, const Value& divisor, int64_t expected) {
    const Value rem = py_binary(BinaryOp::Mod, v, divisor, r.text_limit());
    return py_equal(rem, Value::integer(expected));
}

bool t_odd(Renderer& r, const Value& v, CallArgs a) { no_args(a, "test_odd"); return mod_equals(r, v, Value::integer(2), 1); }
bool t_even(Renderer& r, const Value& v, CallArgs a) { no_args(a, "test_even"); return mod_equals(r, v, Value::integer(2), 0); }
bool t_divisibleby(Renderer& r, const Value& v, CallArgs a) {
    return mod_equals(r, v, one_arg(a, "test_divisibleby", "num"), 0);
}
bool t_defined(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_defined"); return !v.is_undefined(); }
bool t_undefined(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_undefined"); return v.is_undefined(); }
bool t_filter(Renderer&, const Value& v, CallArgs a) {
    no_args(a, "test_filter");
    return v.is_string() && (find_filter(v.str()) || is_unimplemented_filter(v.str()));
}
bool t_test(Renderer&, const Value& v, CallArgs a) {
    no_args(a, "test_test");
    return v.is_string() && find_test(v.str());
}
bool t_none(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_none"); return v.is_none(); }
bool t_boolean(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_boolean"); return v.is_bool(); }
bool t_false(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_false"); return v.is_bool() && !v.as_bool(); }
bool t_true(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_true"); return v.is_bool() && v.as_bool(); }
bool t_integer(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_integer"); return v.is_int(); }
bool t_float(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_float"); return v.is_float(); }
bool t_lower(Renderer& r, const Value& v, CallArgs a) { no_args(a, "test_lower"); return py_islower(py_str(v, r.text_limit())); }
bool t_upper(Renderer& r, const Value& v, CallArgs a) { no_args(a, "test_upper"); return py_isupper(py_str(v, r.text_limit())); }
bool t_string(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_string"); return v.is_string(); }
bool t_mapping(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_mapping"); return v.is_dict(); }
bool t_number(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_number"); return v.is_number(); }

bool t_sequence(Renderer&, const Value& v, CallArgs a) {
    no_args(a, "test_sequence");
    // len() and __getitem__: str, list, tuple, range, dict, and Undefined (which has both)
    if (v.is_string() || v.is_dict() || v.is_undefined()) return true;
    if (v.is_seq()) {
        const SeqKind k = v.seq_kind();
        return k != SeqKind::DictKeys && k != SeqKind::DictValues && k != SeqKind::DictItems;
    }
    return false;
}

bool t_sameas(Renderer&, const Value& v, CallArgs a) {
    const Value& other = one_arg(a, "test_sameas", "other");
    if (v.kind() != other.kind()) return false;
    switch (v.kind()) {
    case Value::Kind::None: return true;
    case Value::Kind::Bool: return v.as_bool() == other.as_bool();
    case Value::Kind::Int:  // CPython caches the small ints
        return v.as_int() == other.as_int() && v.as_int() >= -5 && v.as_int() <= 256;
    case Value::Kind::Float: return false;
    default: return v.identity() == other.identity();
    }
}

bool t_iterable(Renderer&, const Value& v, CallArgs a) { no_args(a, "test_iterable"); return is_iterable(v); }

bool t_callable(Renderer&, const Value& v, CallArgs a) {
    no_args(a, "callable");
    return v.is_undefined() || (v.is_object() && v.obj()->callable());
}

bool t_escaped(Renderer&, const Value& v, CallArgs a) {
    no_args(a, "test_escaped");
    return v.is_markup();
}

bool t_in(Renderer&, const Value& v, CallArgs a) { return py_contains(one_arg(a, "test_in", "seq"), v); }

bool cmp(const Value& v, const CallArgs& a, CompareOp op) {
    if (a.positional.size() != 1 || !a.keywords.empty())
        throw_type_error(std::string("expected 2 arguments, got ") + std::to_string(1 + a.positional.size() + a.keywords.size()));
    return py_compare(op, v, a.positional[0]);
}
bool t_eq(Renderer&, const Value& v, CallArgs a) { return cmp(v, a, CompareOp::Eq); }
bool t_ne(Renderer&, const Value& v, CallArgs a) { return cmp(v, a, CompareOp::Ne); }
bool t_gt(Renderer&, const Value& v, CallArgs a) { return cmp(v, a, CompareOp::Gt); }
bool t_ge(Renderer&, const Value& v, CallArgs a) { return cmp(v, a, CompareOp::Ge); }
bool t_lt(Renderer&, const Value& v, CallArgs a) { return cmp(v, a, CompareOp::Lt); }
bool t_le(Renderer&, const Value& v, CallArgs a) { return cmp(v, a, CompareOp::Le); }

struct TestEntry {
    const char* name;
    TestFn fn;
};

const TestEntry kTests[] = {
    {"odd", t_odd}, {"even", t_even}, {"divisibleby", t_divisibleby}, {"defined", t_defined},
    {"undefined", t_undefined}, {"filter", t_filter}, {"test", t_test}, {"none", t_none},
    {"boolean", t_boolean}, {"false", t_false}, {"true", t_true}, {"integer", t_integer},
    {"float", t_float}, {"lower", t_lower}, {"upper", t_upper}, {"string", t_string},
    {"mapping", t_mapping}, {"number", t_number}, {"sequence", t_sequence}, {"iterable", t_iterable},
    {"callable", t_callable}, {"sameas", t_sameas}, {"escaped", t_escaped}, {"in", t_in},
    {"==", t_eq}, {"eq", t_eq}, {"equalto", t_eq}, {"!=", t_ne}, {"ne", t_ne},
    {">", t_gt}, {"gt", t_gt}, {"greaterthan", t_gt}, {"ge", t_ge}, {">=", t_ge},
    {"<", t_lt}, {"lt", t_lt}, {"lessthan", t_lt}, {"<=", t_le}, {"le", t_le},
};

}  // namespace

TestFn find_test(std::string_view name) {
    for (const auto& e : kTests)
        if (name == e.name) return e.fn;
    return nullptr;
}

}  // namespace folio::jinja
