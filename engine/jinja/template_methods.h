#pragma once
// The Python attributes of built-in values a template may use: str methods (strip, split, startswith,
// format, ...), dict methods (items, keys, values, get), list/tuple methods (index, count), number
// properties. The sandbox transformers uses forbids methods that mutate (list.append, dict.update,
// ...): reading one gives an Undefined that raises SecurityError when used, as in Jinja2.
#include <optional>
#include <string>

#include "engine/jinja/template_value.h"

namespace folio::jinja {

class Renderer;

// obj.name if Python's getattr(obj, name) would succeed, else nullopt.
std::optional<Value> builtin_attribute(Renderer& r, const Value& obj, const std::string& name);

// Calls method `name` of `receiver` (a str, dict, list, tuple or number).
Value call_builtin_method(Renderer& r, const Value& receiver, const std::string& name, CallArgs args);

}  // namespace folio::jinja
