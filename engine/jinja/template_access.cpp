// The renderer's access to values as Jinja2's sandbox gives it: obj.name prefers Python attributes
// and falls back to obj['name'], obj[key] the other way round, missing things are Undefined (with
// Jinja's messages), mutating methods are unsafe; iteration, calls, and filters/tests by name.
#include "engine/jinja/python_ops.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/python_text.h"
#include "engine/jinja/template_builtins.h"
#include "engine/jinja/template_methods.h"
#include "engine/jinja/template_renderer.h"

namespace folio::jinja {

namespace {
// Jinja2's Undefined for a missing attribute: "'dict object' has no attribute 'x'". (Built step by
// step: GCC 12 warns spuriously about "literal" + std::string&&.)
Value no_attribute(const Value& obj, const std::string& name) {
    std::string message = "'";
    message += object_type_repr(obj);
    message += "' has no attribute '";
    message += name;
    message += "'";
    return Value::undefined(std::move(message));
}
}  // namespace

std::string object_type_repr(const Value& v) {
    if (v.is_none()) return "None";
    if (v.is_object()) {
        const std::string module = v.obj()->module();
        return (module.empty() ? "" : module + ".") + v.obj()->type_name() + " object";
    }
    return type_name(v) + " object";
}

Value Renderer::getattr(const Value& obj, const std::string& name) {
    if (obj.is_undefined()) fail_undefined(obj);
    if (auto v = builtin_attribute(*this, obj, name)) return *v;
    if (obj.is_dict()) {
        if (const Value* v = obj.dict().find(std::string_view(name))) return *v;
    }
    return no_attribute(obj, name);
}

Value Renderer::attribute_only(const Value& obj, const std::string& name) {
    if (obj.is_undefined()) fail_undefined(obj);
    if (auto v = builtin_attribute(*this, obj, name)) return *v;
    return no_attribute(obj, name);
}

Value Renderer::getitem(const Value& obj, const Value& key) {
    if (obj.is_undefined()) fail_undefined(obj);
    auto index = [&](int64_t n) -> std::optional<int64_t> {
        if (!key.is_integral()) return std::nullopt;
        int64_t i = key.as_int();
        if (i < 0) i += n;
        if (i < 0 || i >= n) return std::nullopt;
        return i;
    };
    if (obj.is_string()) {
        if (key.is_integral()) {
            const std::u32string cps = to_code_points(obj.str());
            if (auto i = index(int64_t(cps.size()))) {
                std::string ch = to_utf8(std::u32string(1, cps[size_t(*i)]));
                return obj.is_markup() ? Value::markup(std::move(ch)) : Value::string(std::move(ch));
            }
        }
    } else if (obj.is_seq()) {
        const SeqKind k = obj.seq_kind();
        if (k != SeqKind::DictKeys && k != SeqKind::DictValues && k != SeqKind::DictItems)
            if (auto i = index(int64_t(obj.items().size()))) return obj.items()[size_t(*i)];
    } else if (obj.is_dict()) {
        bool hashable = true;
        try {
            require_hashable(key);
        } catch (const Fault&) {
            hashable = false;
        }
        if (hashable)
            if (const Value* v = obj.dict().find(key)) return *v;
    }
    if (key.is_string()) {
        if (auto v = builtin_attribute(*this, obj, key.str())) return *v;
        return no_attribute(obj, key.str());
    }
    return Value::undefined(object_type_repr(obj) + " has no element " + py_repr(key, 200));
}

std::vector<Value> Renderer::iterate(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::String: {
        std::vector<Value> out;
        const std::string& s = v.str();
        for (size_t i = 0; i < s.size();) {
            const size_t at = i;
            next_code_point(s, i);
            out.push_back(Value::string(s.substr(at, i - at)));
        }
        return out;
    }
    case Value::Kind::Seq: return v.items();
    case Value::Kind::Dict: {
        std::vector<Value> out;
        for (const auto& kv : v.dict().items) out.push_back(kv.first);
        return out;
    }
    case Value::Kind::Undefined:
    case Value::Kind::Missing: return {};
    case Value::Kind::Object:
        if (v.obj()->iterable()) return v.obj()->iterate();
        [[fallthrough]];
    default: throw_type_error("'" + type_name(v) + "' object is not iterable");
    }
}

Value Renderer::call(const Value& callee, CallArgs args) {
    if (callee.is_undefined()) fail_undefined(callee);
    if (!callee.is_object() || !callee.obj()->callable())
        throw_type_error("'" + type_name(callee) + "' object is not callable");
    charge(1);
    DepthGuard guard(*this);
    return callee.obj()->call(*this, std::move(args));
}

Value Renderer::apply_filter(const std::string& name, Value subject, CallArgs args) {
    FilterFn fn = find_filter(name);
    if (!fn) {
        if (is_unimplemented_filter(name))
            throw Fault(FaultKind::TemplateRuntimeError, "the '" + name + "' filter is not supported by this template engine");
        throw Fault(FaultKind::TemplateRuntimeError, "No filter named '" + name + "'.");
    }
    charge(1);
    return fn(*this, std::move(subject), std::move(args));
}

bool Renderer::apply_test(const std::string& name, const Value& subject, CallArgs args) {
    TestFn fn = find_test(name);
    if (!fn) throw Fault(FaultKind::TemplateRuntimeError, "No test named '" + name + "'.");
    charge(1);
    return fn(*this, subject, std::move(args));
}

}  // namespace folio::jinja
