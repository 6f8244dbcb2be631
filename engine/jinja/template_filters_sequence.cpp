// Filters on sequences and mappings (Jinja2 3.1), as the Python originals behave: most return
// one-pass generators, as Jinja's do.
#include "engine/jinja/template_filter_support.h"

#include <functional>

namespace folio::jinja::filters {

namespace {

Value f_attr(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_attr", {"name"});
    if (!b[0]) throw_type_error("do_attr() missing 1 required positional argument: 'name'");
    return r.attribute_only(v, soft_str(r, *b[0]));
}

Value f_batch(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_batch", {"linecount", "fill_with"});
    if (!b[0]) throw_type_error("do_batch() missing 1 required positional argument: 'linecount'");
    const int64_t n = int_arg(*b[0], "linecount");
    std::vector<Value> out, tmp;
    for (Value& item : items_of(r, v)) {
        if (int64_t(tmp.size()) == n) {
            out.push_back(Value::list(std::move(tmp)));
            tmp.clear();
        }
        tmp.push_back(std::move(item));
    }
    if (!tmp.empty()) {
        if (b[1] && !b[1]->is_none())
            while (int64_t(tmp.size()) < n) tmp.push_back(*b[1]);
        out.push_back(Value::list(std::move(tmp)));
    }
    return generator(std::move(out), "do_batch");
}

Value f_length(Renderer&, Value v, CallArgs a) {
    if (!a.positional.empty() || !a.keywords.empty()) throw_type_error("len() takes exactly one argument");
    auto n = py_len(v);
    if (!n) throw_type_error("object of type '" + type_name(v) + "' has no len()");
    return Value::integer(*n);
}

Value f_dictsort(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_dictsort", {"case_sensitive", "by", "reverse"});
    int pos = 0;
    if (b[1]) {
        const Value& by = *b[1];
        if (by.is_string() && by.str() == "value") pos = 1;
        else if (!(by.is_string() && by.str() == "key"))
            throw Fault(FaultKind::FilterArgumentError, "You can only sort by either \"key\" or \"value\"");
    }
    if (v.is_undefined()) fail_undefined(v);  // value.items() on an Undefined
    if (!v.is_dict()) throw Fault(FaultKind::AttributeError, "'" + type_name(v) + "' object has no attribute 'items'");
    const auto& items = v.dict().items;
    std::vector<Value> keys;
    std::vector<size_t> order;
    for (size_t i = 0; i < items.size(); ++i) {
        const Value& k = pos == 0 ? items[i].first : items[i].second;
        keys.push_back(arg_true(b[0]) ? k : ignore_case(k));
        order.push_back(i);
    }
    r.charge(items.size());
    stable_sort_by(order, keys, arg_true(b[2]));
    std::vector<Value> out;
    for (size_t i : order) out.push_back(Value::tuple({items[i].first, items[i].second}));
    return Value::list(std::move(out));
}

Value f_first(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_first", {});
    if (v.is_object()) {
        if (auto* g = dynamic_cast<GeneratorObject*>(v.obj())) {
            if (auto item = g->next_item()) return *item;
            return Value::undefined("No first item, sequence was empty.");
        }
    }
    if (!is_iterable(v)) throw_type_error("'" + type_name(v) + "' object is not iterable");
    if (v.is_seq() && !v.items().empty()) return v.items()[0];
    auto items = r.iterate(v);
    if (items.empty()) return Value::undefined("No first item, sequence was empty.");
    return items[0];
}

Value f_groupby(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_groupby", {"attribute", "default", "case_sensitive"});
    if (!b[0]) throw_type_error("do_groupby() missing 1 required positional argument: 'attribute'");
    const bool case_sensitive = arg_true(b[2]);
    AttrGetter key{attribute_parts(b[0]), !case_sensitive, b[1]};
    AttrGetter real{attribute_parts(b[0]), false, b[1]};
    std::vector<Value> items = items_of(r, v);
    std::vector<Value> keys;
    std::vector<size_t> order;
    for (size_t i = 0; i < items.size(); ++i) {
        keys.push_back(key(r, items[i]));
        order.push_back(i);
    }
    stable_sort_by(order, keys, false);
    std::vector<Value> groups;
    size_t i = 0;
    while (i < order.size()) {
        size_t j = i;
        std::vector<Value> members;
        while (j < order.size() && py_equal(keys[order[j]], keys[order[i]])) members.push_back(items[order[j++]]);
        const Value grouper = case_sensitive ? keys[order[i]] : real(r, members[0]);
        groups.push_back(Value::sequence({grouper, Value::list(std::move(members))}, SeqKind::GroupTuple));
        i = j;
    }
    return Value::list(std::move(groups));
}

Value f_items(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_items", {});
    if (v.is_undefined()) return generator({}, "do_items");
    if (!v.is_dict()) throw_type_error("Can only get item pairs from a mapping.");
    std::vector<Value> out;
    for (const auto& [k, x] : v.dict().items) out.push_back(Value::tuple({k, x}));
    r.charge(out.size() / 4);
    return generator(std::move(out), "do_items");
}

Value f_join(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_join", {"d", "attribute"});
    const std::string sep = b[0] ? soft_str(r, *b[0]) : "";
    AttrGetter get{attribute_parts(b[1])};
    std::string out;
    bool first = true;
    for (const Value& item : items_of(r, v)) {
        if (!first) out += sep;
        first = false;
        append_str(out, get.parts.empty() ? item : get(r, item), r.text_limit());
        check_text_size(out.size(), r.text_limit());
    }
    return Value::string(std::move(out));
}

Value f_last(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_last", {});
    const bool reversible = v.is_string() || v.is_dict() || v.is_undefined() ||
                            (v.is_seq());
    if (!reversible) throw_type_error("'" + type_name(v) + "' object is not reversible");
    auto items = r.iterate(v);
    if (items.empty()) return Value::undefined("No last item, sequence was empty.");
    return items.back();
}

Value f_list(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_list", {});
    if (!is_iterable(v)) throw_type_error("'" + type_name(v) + "' object is not iterable");
    return Value::list(items_of(r, v));
}

Value f_map(Renderer& r, Value v, CallArgs a) {
    if (!truthy(v)) return generator({}, "sync_do_map");
    std::function<Value(const Value&)> fn;
    if (a.positional.empty() && a.keyword("attribute")) {
        AttrGetter get;
        std::optional<Value> fallback;
        for (auto& [k, x] : a.keywords) {
            if (k == "attribute") get.parts = attribute_parts(x);
            else if (k == "default") fallback = x;
            else throw Fault(FaultKind::FilterArgumentError, "Unexpected keyword argument '" + k + "'");
        }
        get.fallback = fallback;
        fn = [&r, get](const Value& item) { return get(r, item); };
    } else {
        if (a.positional.empty()) throw Fault(FaultKind::FilterArgumentError, "map requires a filter argument");
        const std::string name = soft_str(r, a.positional[0]);
        CallArgs rest;
        rest.positional.assign(a.positional.begin() + 1, a.positional.end());
        rest.keywords = a.keywords;
        fn = [&r, name, rest](const Value& item) { return r.apply_filter(name, item, rest); };
    }
    std::vector<Value> out;
    for (const Value& item : items_of(r, v)) out.push_back(fn(item));
    return generator(std::move(out), "sync_do_map");
}

Value min_or_max(Renderer& r, Value v, CallArgs a, bool max) {
    Bound b = bind_args(a, max ? "do_max" : "do_min", {"case_sensitive", "attribute"});
    AttrGetter key{attribute_parts(b[1]), !arg_true(b[0])};
    auto items = items_of(r, v);
    if (items.empty()) return Value::undefined("No aggregated item, sequence was empty.");
    size_t best = 0;
    Value best_key = key(r, items[0]);
    for (size_t i = 1; i < items.size(); ++i) {
        Value k = key(r, items[i]);
        if (py_compare(max ? CompareOp::Gt : CompareOp::Lt, k, best_key)) {
            best = i;
            best_key = std::move(k);
        }
    }
    return items[best];
}

Value f_max(Renderer& r, Value v, CallArgs a) { return min_or_max(r, std::move(v), std::move(a), true); }

Value f_min(Renderer& r, Value v, CallArgs a) { return min_or_max(r, std::move(v), std::move(a), false); }

Value select_or_reject(Renderer& r, const Value& v, CallArgs a, bool select, bool attr) {
    if (!truthy(v)) return generator({}, "select_or_reject");
    AttrGetter get;
    size_t off = 0;
    if (attr) {
        if (a.positional.empty()) throw Fault(FaultKind::FilterArgumentError, "Missing parameter for attribute name");
        get.parts = attribute_parts(a.positional[0]);
        off = 1;
    }
    std::optional<std::string> test;
    CallArgs rest;
    if (a.positional.size() > off) {
        test = soft_str(r, a.positional[off]);
        rest.positional.assign(a.positional.begin() + std::ptrdiff_t(off) + 1, a.positional.end());
    }
    rest.keywords = a.keywords;
    std::vector<Value> out;
    for (Value& item : items_of(r, v)) {
        const Value subject = attr ? get(r, item) : item;
        const bool ok = test ? r.apply_test(*test, subject, rest) : truthy(subject);
        if (ok == select) out.push_back(std::move(item));
    }
    return generator(std::move(out), "select_or_reject");
}

Value f_select(Renderer& r, Value v, CallArgs a) { return select_or_reject(r, v, std::move(a), true, false); }

Value f_reject(Renderer& r, Value v, CallArgs a) { return select_or_reject(r, v, std::move(a), false, false); }

Value f_selectattr(Renderer& r, Value v, CallArgs a) { return select_or_reject(r, v, std::move(a), true, true); }

Value f_rejectattr(Renderer& r, Value v, CallArgs a) { return select_or_reject(r, v, std::move(a), false, true); }

Value f_reverse(Renderer& r, Value v, CallArgs a) {
    bind_args(a, "do_reverse", {});
    if (v.is_string()) {
        std::u32string cps = to_code_points(v.str());
        std::reverse(cps.begin(), cps.end());
        return like(v, to_utf8(cps));
    }
    if (!is_iterable(v)) throw Fault(FaultKind::FilterArgumentError, "argument must be iterable");
    auto items = items_of(r, v);
    std::reverse(items.begin(), items.end());
    if (v.is_object()) return Value::list(std::move(items));  // reversed() fails, list(value) reversed
    const char* type = v.is_dict() ? "dict_reversekeyiterator" : (v.is_seq() && v.seq_kind() == SeqKind::List) ? "list_reverseiterator"
                                                                                                            : "reversed";
    return Value::object(std::make_shared<GeneratorObject>(std::move(items), "", type));
}

Value f_slice(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "sync_do_slice", {"slices", "fill_with"});
    if (!b[0]) throw_type_error("sync_do_slice() missing 1 required positional argument: 'slices'");
    const int64_t slices = int_arg(*b[0], "slices");
    auto seq = items_of(r, v);
    if (slices == 0) throw Fault(FaultKind::ZeroDivisionError, "integer division or modulo by zero");
    const int64_t length = int64_t(seq.size());
    int64_t per = length / slices, extra = length % slices;
    if (extra < 0) { extra += slices; per -= 1; }  // Python's floor division
    std::vector<Value> out;
    int64_t offset = 0;
    r.charge(uint64_t(std::max<int64_t>(slices, 0)));
    for (int64_t n = 0; n < slices; ++n) {
        const int64_t start = offset + n * per;
        if (n < extra) ++offset;
        const int64_t end = offset + (n + 1) * per;
        std::vector<Value> tmp;
        for (int64_t i = std::max<int64_t>(start, 0); i < std::min(end, length); ++i) tmp.push_back(seq[size_t(i)]);
        if (b[1] && !b[1]->is_none() && n >= extra) tmp.push_back(*b[1]);
        out.push_back(Value::list(std::move(tmp)));
    }
    return generator(std::move(out), "sync_do_slice");
}

Value f_sort(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_sort", {"reverse", "case_sensitive", "attribute"});
    const bool lower = !arg_true(b[1]);
    std::vector<std::vector<Value>> attr_paths;
    if (b[2] && b[2]->is_string()) {
        for (auto& part : py_split(b[2]->str(), std::string(","), -1)) attr_paths.push_back(attribute_parts(Value::string(part)));
    } else {
        attr_paths.push_back(attribute_parts(b[2]));
    }
    auto items = items_of(r, v);
    std::vector<Value> keys;
    std::vector<size_t> order;
    for (size_t i = 0; i < items.size(); ++i) {
        std::vector<Value> key;
        for (const auto& path : attr_paths) key.push_back(AttrGetter{path, lower}(r, items[i]));
        keys.push_back(Value::list(std::move(key)));
        order.push_back(i);
    }
    r.charge(items.size() * 4);
    stable_sort_by(order, keys, arg_true(b[0]));
    std::vector<Value> out;
    for (size_t i : order) out.push_back(items[i]);
    return Value::list(std::move(out));
}

Value f_sum(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_sum", {"attribute", "start"});
    Value total = b[1] ? *b[1] : Value::integer(0);
    if (total.is_string()) throw_type_error("sum() can't sum strings [use ''.join(seq) instead]");
    AttrGetter get{attribute_parts(b[0])};
    if (!is_iterable(v)) throw_type_error("'" + type_name(v) + "' object is not iterable");
    for (const Value& item : items_of(r, v)) total = py_binary(BinaryOp::Add, total, get.parts.empty() ? item : get(r, item), r.text_limit());
    return total;
}

Value f_unique(Renderer& r, Value v, CallArgs a) {
    Bound b = bind_args(a, "do_unique", {"case_sensitive", "attribute"});
    AttrGetter key{attribute_parts(b[1]), !arg_true(b[0])};
    std::vector<Value> seen, out;
    for (Value& item : items_of(r, v)) {
        Value k = key(r, item);
        require_hashable(k);
        bool dup = false;
        for (const Value& s : seen)
            if (py_equal(s, k)) {
                dup = true;
                break;
            }
        r.charge(seen.size() / 64);
        if (!dup) {
            seen.push_back(std::move(k));
            out.push_back(std::move(item));
        }
    }
    return generator(std::move(out), "sync_do_unique");
}

const FilterEntry kFilters[] = {
    {"attr", f_attr},
    {"batch", f_batch},
    {"count", f_length},
    {"dictsort", f_dictsort},
    {"first", f_first},
    {"groupby", f_groupby},
    {"items", f_items},
    {"join", f_join},
    {"last", f_last},
    {"length", f_length},
    {"list", f_list},
    {"map", f_map},
    {"max", f_max},
    {"min", f_min},
    {"reject", f_reject},
    {"rejectattr", f_rejectattr},
    {"reverse", f_reverse},
    {"select", f_select},
    {"selectattr", f_selectattr},
    {"slice", f_slice},
    {"sort", f_sort},
    {"sum", f_sum},
    {"unique", f_unique},
};

}  // namespace

std::span<const FilterEntry> sequence_filters() { return kFilters; }

}  // namespace folio::jinja::filters
