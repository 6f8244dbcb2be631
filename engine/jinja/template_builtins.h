#pragma once
// The filters (`x | name(...)`) and tests (`x is name ...`) of Jinja2 3.1, as registered in the
// environment transformers builds (its own `tojson` included), and the global functions.
#include <string_view>

#include "engine/jinja/template_ast.h"

namespace folio::jinja {

FilterFn find_filter(std::string_view name);  // nullptr when unknown
TestFn find_test(std::string_view name);

// Jinja2 built-ins this engine does not implement (urlize, wordwrap, ...): a template naming one still
// parses; evaluating it is an error that says so.
bool is_unimplemented_filter(std::string_view name);

// The render context's globals: range, namespace, dict, cycler, joiner, raise_exception,
// strftime_now, lipsum. nullopt-like Missing when `name` is none of them.
Value find_global(std::string_view name);

}  // namespace folio::jinja
