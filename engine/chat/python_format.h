#pragma once
// Python's two string formatting languages: `fmt % args` (printf style, also the `format` filter) and
// str.format() with its format-spec mini-language ("{:>8.2f}", "{0[key]}", "{name!r}").
#include <functional>
#include <string>

#include "engine/chat/template_value.h"

namespace folio::jinja {

// `fmt % args` where args is a tuple (positional), a dict (for "%(key)s") or any single value.
std::string percent_format(const std::string& fmt, const Value& args, size_t limit);

// How str.format() looks up "{0.attr}" and "{0[key]}": through the sandbox's getattr/getitem.
using FieldLookup = std::function<Value(const Value& obj, const Value& key, bool attribute)>;

std::string str_format(const std::string& fmt, const CallArgs& args, const FieldLookup& lookup, size_t limit);

// format(value, spec): the format-spec mini-language applied to one value.
std::string format_value(const Value& v, const std::string& spec, size_t limit);

}  // namespace folio::jinja
