#pragma once
// What the filter implementations share (internal to engine/chat): Jinja2's make_attrgetter, the
// argument helpers, and the two halves of the filter table.
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/jinja/python_ops.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/python_text.h"
#include "engine/jinja/template_call_args.h"
#include "engine/jinja/template_objects.h"
#include "engine/jinja/template_renderer.h"

namespace folio::jinja::filters {

struct FilterEntry {
    const char* name;
    FilterFn fn;
};

std::span<const FilterEntry> text_filters();      // template_filters_text.cpp
std::span<const FilterEntry> sequence_filters();  // template_filters_sequence.cpp

using Bound = std::vector<std::optional<Value>>;

inline std::string soft_str(Renderer& r, const Value& v) { return py_str(v, r.text_limit()); }

// A str result that stays Markup when the filter's input was Markup (markupsafe's str methods do).
inline Value like(const Value& input, std::string s) {
    return input.is_markup() ? Value::markup(std::move(s)) : Value::string(std::move(s));
}

inline Value generator(std::vector<Value> items, const char* origin) {
    return Value::object(std::make_shared<GeneratorObject>(std::move(items), origin));
}

inline bool arg_true(const std::optional<Value>& v) { return v && truthy(*v); }

inline std::vector<Value> items_of(Renderer& r, const Value& v) {
    auto items = r.iterate(v);
    r.charge(items.size() / 4);
    return items;
}

// Jinja2's make_attrgetter: "a.b.0" looks up a, then b, then index 0, through the sandbox's getitem.
inline std::vector<Value> attribute_parts(const std::optional<Value>& attribute) {
    std::vector<Value> parts;
    if (!attribute || attribute->is_none()) return parts;
    if (attribute->is_string()) {
        for (auto& part : py_split(attribute->str(), std::string("."), -1)) {
            const bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos && part.size() < 18;
            parts.push_back(digits ? Value::integer(std::stoll(part)) : Value::string(part));
        }
        return parts;
    }
    parts.push_back(*attribute);
    return parts;
}

inline Value ignore_case(const Value& v) { return v.is_string() ? Value::string(py_lower(v.str())) : v; }

struct AttrGetter {
    std::vector<Value> parts;
    bool lower = false;
    std::optional<Value> fallback = std::nullopt;  // `default` of map/groupby (None means no default)

    Value operator()(Renderer& r, Value item) const {
        for (const Value& part : parts) {
            item = r.getitem(item, part);
            if (fallback && !fallback->is_none() && item.is_undefined()) item = *fallback;
        }
        return lower ? ignore_case(item) : item;
    }
};

// Python's sorted(): stable; reverse keeps equal items in their original order.
inline void stable_sort_by(std::vector<size_t>& order, const std::vector<Value>& keys, bool reverse) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return reverse ? py_less(keys[b], keys[a]) : py_less(keys[a], keys[b]);
    });
}

}  // namespace folio::jinja::filters
