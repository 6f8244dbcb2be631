#pragma once
// Python's two string formatting languages: `fmt % args` (printf style, also the `format` filter) and
// str.format() with its format-spec mini-language ("{:>8.2f}", "{0[key]}", "{name!r}").
#include <functional>
#include <string>

#include "engine/jinja/template_value.h"

namespace folio::jinja {

// `fmt % args` where args is a tuple (positional), a dict (for "%(key)s") or any single value.
// `escape_args`: Markup's %, which HTML-escapes what %s and %r insert.
std::string percent_format(const std::string& fmt, const Value& args, size_t limit, bool escape_args = false);

// How str.format() looks up "{0.attr}" and "{0[key]}": through the sandbox's getattr/getitem.
using FieldLookup = std::function<Value(const Value& obj, const Value& key, bool attribute)>;

// `escape_fields`: Markup.format, which HTML-escapes every formatted field.
std::string str_format(const std::string& fmt, const CallArgs& args, const FieldLookup& lookup, size_t limit,
                       bool escape_fields = false);

// format(value, spec): the format-spec mini-language applied to one value.
std::string format_value(const Value& v, const std::string& spec, size_t limit);

}  // namespace folio::jinja
