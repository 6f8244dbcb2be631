#pragma once
// str() and repr() of template values exactly as Python prints them: 1.0, 1e+16, 'it\'s' quoting,
// [1, 'a', None], {'temp': 21}, (1,), True. Output longer than `limit` bytes is an error (a runaway
// template must not exhaust memory by printing a huge structure).
#include <string>

#include "engine/jinja/template_value.h"

namespace folio::jinja {

inline constexpr int kMaxReprDepth = 256;

std::string py_str(const Value& v, size_t limit);
std::string py_repr(const Value& v, size_t limit);
void append_repr(std::string& out, const Value& v, size_t limit, int depth);
void append_str(std::string& out, const Value& v, size_t limit);

// Python's repr(float): the shortest digits that round-trip; exponent form below 1e-4 and from 1e16.
std::string float_repr(double d);

// Throws LimitExceeded when a string being built has grown past `limit`.
void check_text_size(size_t size, size_t limit);

}  // namespace folio::jinja
