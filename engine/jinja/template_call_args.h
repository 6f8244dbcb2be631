#pragma once
// Binding a call's arguments to a Python-style signature, with Python's error messages.
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "engine/jinja/template_value.h"

namespace folio::jinja {

// Binds positional and keyword arguments to `params` (in order); absent ones are nullopt. Throws
// TypeError for too many arguments, unknown or repeated keywords.
std::vector<std::optional<Value>> bind_args(const CallArgs& args, const char* func,
                                            std::initializer_list<const char*> params);

// The argument as an int (bool counts, as in Python); TypeError otherwise.
int64_t int_arg(const Value& v, const char* what);
// The argument as a str; otherwise TypeError "<what> must be str, not int" (`what` may be "").
const std::string& str_arg(const Value& v, const char* what);

}  // namespace folio::jinja
