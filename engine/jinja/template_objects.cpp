#include "engine/jinja/template_objects.h"

#include "engine/jinja/python_ops.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/template_call_args.h"
#include "engine/jinja/template_methods.h"
#include "engine/jinja/template_renderer.h"

namespace folio::jinja {

// ---- namespace ----

void NamespaceObject::append_repr(std::string& out, size_t limit, int depth) const {
    if (in_repr_) {
        out += "<Namespace {...}>";
        return;
    }
    struct Guard {
        explicit Guard(bool& b) : b_(b) { b_ = true; }
        ~Guard() { b_ = false; }
        bool& b_;
    } guard(in_repr_);
    out += "<Namespace {";
    bool first = true;
    for (const auto& [k, v] : attrs_) {
        if (!first) out += ", ";
        first = false;
        jinja::append_repr(out, k, limit, depth + 1);
        out += ": ";
        jinja::append_repr(out, v, limit, depth + 1);
    }
    out += "}>";
}

std::optional<Value> NamespaceObject::attribute(Renderer&, std::string_view name) {
    for (const auto& [k, v] : attrs_)
        if (k.is_string() && k.str() == name) return v;
    return std::nullopt;
}

void NamespaceObject::set(const std::string& name, Value v) { set(Value::string(name), std::move(v)); }

void NamespaceObject::set(const Value& key, Value v) {
    for (auto& [k, old] : attrs_)
        if (py_equal(k, key)) {
            old = std::move(v);
            return;
        }
    attrs_.emplace_back(key, std::move(v));
}

// ---- macro ----

void MacroObject::append_repr(std::string& out, size_t, int) const { out += "<Macro '" + def_.name + "'>"; }

Value MacroObject::call(Renderer& r, CallArgs args) {
    const MacroDef& d = def_;
    const size_t n = d.params.size();
    std::vector<Value> arguments;
    for (size_t i = 0; i < n && i < args.positional.size(); ++i) arguments.push_back(args.positional[i]);
    auto& kw = args.keywords;
    auto pop = [&](const std::string& name) -> std::optional<Value> {
        for (auto it = kw.begin(); it != kw.end(); ++it)
            if (it->first == name) {
                Value v = std::move(it->second);
                kw.erase(it);
                return v;
            }
        return std::nullopt;
    };
    bool found_caller = false;
    if (arguments.size() != n) {
        for (size_t i = arguments.size(); i < n; ++i) {
            arguments.push_back(pop(d.params[i]).value_or(Value::missing()));
            if (d.params[i] == "caller") found_caller = true;
        }
    } else {
        found_caller = d.explicit_caller;
    }
    Value caller = Value::missing();
    if (d.accesses_caller && !found_caller) {
        auto c = pop("caller");
        caller = c && !c->is_none() ? *c : Value::undefined("No caller defined");
    }
    Value kwargs = Value::missing();
    if (d.kwargs_slot >= 0) {
        std::vector<std::pair<Value, Value>> items;
        for (auto& [k, v] : kw) items.emplace_back(Value::string(k), std::move(v));
        kwargs = Value::dict(std::move(items));
    } else if (!kw.empty()) {
        for (const auto& [k, v] : kw)
            if (k == "caller")
                throw_type_error("macro '" + d.name +
                                 "' was invoked with two values for the special caller argument. This is most likely a bug.");
        throw_type_error("macro '" + d.name + "' takes no keyword argument '" + kw.front().first + "'");
    }
    Value varargs = Value::missing();
    if (d.varargs_slot >= 0) {
        std::vector<Value> rest;
        for (size_t i = n; i < args.positional.size(); ++i) rest.push_back(args.positional[i]);
        varargs = Value::tuple(std::move(rest));
    } else if (args.positional.size() > n) {
        throw_type_error("macro '" + d.name + "' takes not more than " + std::to_string(n) + " argument(s)");
    }
    return r.invoke_macro(d, closure_, std::move(arguments), std::move(caller), std::move(kwargs), std::move(varargs));
}

std::optional<Value> MacroObject::attribute(Renderer&, std::string_view name) {
    if (name == "name") return Value::string(def_.name);
    if (name == "arguments") {
        std::vector<Value> names;
        for (const auto& p : def_.params) names.push_back(Value::string(p));
        return Value::tuple(std::move(names));
    }
    if (name == "catch_kwargs") return Value::boolean(def_.kwargs_slot >= 0);
    if (name == "catch_varargs") return Value::boolean(def_.varargs_slot >= 0);
    if (name == "caller") return Value::boolean(def_.accesses_caller);
    return std::nullopt;
}

// ---- loop ----

bool LoopObject::fetch() const {
    while (pos_ < source_.size()) {
        Value v = std::move(source_[pos_++]);
        if (!accept_ || accept_(v)) {
            ahead_.push_back(std::move(v));
            return true;
        }
    }
    return false;
}

bool LoopObject::next(Value& item) {
    if (ahead_.empty() && !fetch()) return false;
    item = std::move(ahead_.front());
    ahead_.pop_front();
    ++index0_;
    before_ = current_;
    current_ = item;
    return true;
}

int64_t LoopObject::total() const {
    while (fetch()) {
    }
    return index0_ + 1 + int64_t(ahead_.size());
}

std::optional<int64_t> LoopObject::length() const { return total(); }

void LoopObject::append_repr(std::string& out, size_t, int) const {
    out += "<LoopContext " + std::to_string(index0_ + 1) + "/" + std::to_string(total()) + ">";
}

std::vector<Value> LoopObject::iterate() {
    std::vector<Value> rest;
    Value item;
    while (next(item)) rest.push_back(item);
    return rest;
}

Value LoopObject::call(Renderer& r, CallArgs args) {
    if (!recursive_) throw_type_error("The loop must be marked 'recursive' to be called recursively.");
    auto bound = bind_args(args, "loop", {"iterable"});
    if (!bound[0]) throw_type_error("loop() missing 1 required positional argument: 'iterable'");
    return Value::string(r.run_loop_level(*recursive_, outer_, *bound[0], depth0_ + 1));
}

std::optional<Value> LoopObject::attribute(Renderer&, std::string_view name) {
    if (name == "index0") return Value::integer(index0_);
    if (name == "index") return Value::integer(index0_ + 1);
    if (name == "first") return Value::boolean(index0_ == 0);
    if (name == "depth0") return Value::integer(depth0_);
    if (name == "depth") return Value::integer(depth0_ + 1);
    if (name == "length") return Value::integer(total());
    if (name == "revindex") return Value::integer(total() - index0_);
    if (name == "revindex0") return Value::integer(total() - index0_ - 1);
    if (name == "last") return Value::boolean(ahead_.empty() && !fetch());
    if (name == "previtem") {
        if (index0_ == 0 || before_.is_missing()) return Value::undefined("there is no previous item");
        return before_;
    }
    if (name == "nextitem") {
        if (ahead_.empty() && !fetch()) return Value::undefined("there is no next item");
        return ahead_.front();
    }
    if (name == "cycle" || name == "changed") return Value::object(std::make_shared<ObjectMethod>(shared_from_this(), std::string(name)));
    return std::nullopt;
}

Value LoopObject::call_method(Renderer& r, const std::string& name, CallArgs args) {
    if (!args.keywords.empty()) throw_type_error(name + "() got an unexpected keyword argument '" + args.keywords[0].first + "'");
    if (name == "cycle") {
        if (args.positional.empty()) throw_type_error("no items for cycling given");
        return args.positional[size_t(index0_ % int64_t(args.positional.size()))];
    }
    if (name == "changed") {
        Value value = Value::tuple(std::move(args.positional));
        if (last_changed_.is_missing() || !py_equal(last_changed_, value)) {
            last_changed_ = std::move(value);
            return Value::boolean(true);
        }
        return Value::boolean(false);
    }
    return Object::call_method(r, name, std::move(args));
}

// ---- methods, functions, generators ----

void BoundMethod::append_repr(std::string& out, size_t, int) const {
    out += "<built-in method " + name_ + " of " + jinja::type_name(receiver_) + " object>";
}

Value BoundMethod::call(Renderer& r, CallArgs args) { return call_builtin_method(r, receiver_, name_, std::move(args)); }

void BuiltinFunction::append_repr(std::string& out, size_t, int) const { out += "<function " + name_ + ">"; }

void GeneratorObject::append_repr(std::string& out, size_t, int) const {
    out += "<" + type_ + " object " + origin_ + ">";
}

std::vector<Value> GeneratorObject::iterate() {
    std::vector<Value> rest(std::make_move_iterator(items_.begin() + std::ptrdiff_t(pos_)),
                            std::make_move_iterator(items_.end()));
    items_.clear();
    pos_ = 0;
    return rest;
}

std::optional<Value> GeneratorObject::next_item() {
    if (pos_ >= items_.size()) return std::nullopt;
    return std::move(items_[pos_++]);
}

void ObjectMethod::append_repr(std::string& out, size_t, int) const {
    out += "<bound method " + target_->type_name() + "." + name_ + ">";
}

// ---- cycler, joiner ----

std::optional<Value> CyclerObject::attribute(Renderer&, std::string_view name) {
    if (name == "current") return items_[pos_];
    if (name == "items") return Value::tuple(items_);
    if (name == "next" || name == "reset") return Value::object(std::make_shared<ObjectMethod>(shared_from_this(), std::string(name)));
    return std::nullopt;
}

Value CyclerObject::call_method(Renderer& r, const std::string& name, CallArgs args) {
    if (!args.positional.empty() || !args.keywords.empty()) throw_type_error(name + "() takes no arguments");
    if (name == "next") {
        Value v = items_[pos_];
        pos_ = (pos_ + 1) % items_.size();
        return v;
    }
    if (name == "reset") {
        pos_ = 0;
        return Value::none();
    }
    return Object::call_method(r, name, std::move(args));
}

Value JoinerObject::call(Renderer&, CallArgs args) {
    if (!args.positional.empty() || !args.keywords.empty()) throw_type_error("Joiner() takes no arguments");
    if (!used_) {
        used_ = true;
        return Value::string("");
    }
    return sep_;
}

}  // namespace folio::jinja
