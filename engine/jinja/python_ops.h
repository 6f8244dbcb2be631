#pragma once
// Python's semantics for template values: truthiness, type names, equality and ordering, arithmetic,
// `in`, len() and iteration — with the errors Python raises (TypeError, ZeroDivisionError, ...) and
// Jinja's Undefined rules (printing and testing an Undefined is fine, computing with it fails).
#include <optional>
#include <string>
#include <vector>

#include "engine/jinja/template_value.h"

namespace folio::jinja {

std::string type_name(const Value& v);  // "int", "str", "NoneType", "dict", "Undefined", ...
bool truthy(const Value& v);

bool py_equal(const Value& a, const Value& b);
// a < b as Python evaluates it; TypeError when the types are not ordered.
bool py_less(const Value& a, const Value& b);
enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge };
bool py_compare(CompareOp op, const Value& a, const Value& b);
const char* compare_op_symbol(CompareOp op);

enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow };
// `limit` bounds the size of strings and lists that + and * may build.
Value py_binary(BinaryOp op, const Value& a, const Value& b, size_t limit);
Value py_negate(const Value& v);
Value py_positive(const Value& v);

// `item in container`; TypeError when the container does not support it.
bool py_contains(const Value& container, const Value& item);
// len(v), or nullopt when v has no length (Undefined has length 0).
std::optional<int64_t> py_len(const Value& v);
// Python's hash() requirement for set/dict keys: TypeError "unhashable type: 'list'".
void require_hashable(const Value& v);
bool is_iterable(const Value& v);

// Python's int(x) for a number (truncating a float); OverflowError for inf/nan.
int64_t float_to_int(double d);
// int(text, base) with Python's syntax (underscores, sign, whitespace, 0x prefixes when base is 0/16).
std::optional<int64_t> parse_python_int(const std::string& text, int base);
// float(text) with Python's syntax (inf, nan, underscores, surrounding whitespace).
std::optional<double> parse_python_float(const std::string& text);

}  // namespace folio::jinja
