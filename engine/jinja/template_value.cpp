#include "engine/jinja/template_value.h"

#include <algorithm>

#include "engine/jinja/python_ops.h"

namespace folio::jinja {

const char* fault_kind_name(FaultKind kind) {
    switch (kind) {
    case FaultKind::TypeError: return "TypeError";
    case FaultKind::ValueError: return "ValueError";
    case FaultKind::UndefinedError: return "UndefinedError";
    case FaultKind::SecurityError: return "SecurityError";
    case FaultKind::ZeroDivisionError: return "ZeroDivisionError";
    case FaultKind::OverflowError: return "OverflowError";
    case FaultKind::KeyError: return "KeyError";
    case FaultKind::IndexError: return "IndexError";
    case FaultKind::AttributeError: return "AttributeError";
    case FaultKind::AssertionError: return "AssertionError";
    case FaultKind::TemplateRuntimeError: return "TemplateRuntimeError";
    case FaultKind::FilterArgumentError: return "FilterArgumentError";
    case FaultKind::LimitExceeded: return "render limit exceeded";
    }
    return "error";
}

void throw_type_error(const std::string& message) { throw Fault(FaultKind::TypeError, message); }
void throw_value_error(const std::string& message) { throw Fault(FaultKind::ValueError, message); }

namespace {
int container_depth(int deepest_child) {
    const int depth = deepest_child + 1;
    if (depth > kMaxValueDepth)
        throw Fault(FaultKind::LimitExceeded,
                    "values nested more than " + std::to_string(kMaxValueDepth) + " levels deep");
    return depth;
}
}  // namespace

Value Value::missing() {
    Value v;
    v.kind_ = Kind::Missing;
    return v;
}

Value Value::undefined(std::string message, FaultKind kind) {
    Value v;
    v.kind_ = Kind::Undefined;
    v.ptr_ = std::make_shared<UndefinedData>(UndefinedData{std::move(message), kind});
    return v;
}

Value Value::boolean(bool b) {
    Value v;
    v.kind_ = Kind::Bool;
    v.b_ = b;
    return v;
}

Value Value::integer(int64_t i) {
    Value v;
    v.kind_ = Kind::Int;
    v.i_ = i;
    return v;
}

Value Value::number(double d) {
    Value v;
    v.kind_ = Kind::Float;
    v.f_ = d;
    return v;
}

Value Value::string(std::string s) {
    Value v;
    v.kind_ = Kind::String;
    v.ptr_ = std::make_shared<std::string>(std::move(s));
    return v;
}

Value Value::markup(std::string s) {
    Value v = string(std::move(s));
    v.markup_ = true;
    return v;
}

Value Value::sequence(std::vector<Value> items, SeqKind kind) {
    int deepest = 0;
    for (const Value& item : items) deepest = std::max(deepest, item.depth());
    auto data = std::make_shared<SequenceData>();
    data->depth = container_depth(deepest);
    data->items = std::move(items);
    data->kind = kind;
    Value v;
    v.kind_ = Kind::Seq;
    v.ptr_ = std::move(data);
    return v;
}

Value Value::range(int64_t start, int64_t stop, int64_t step) {
    std::vector<Value> items;
    if (step > 0)
        for (int64_t i = start; i < stop; i += step) items.push_back(integer(i));
    else
        for (int64_t i = start; i > stop; i += step) items.push_back(integer(i));
    Value v = sequence(std::move(items), SeqKind::Range);
    auto* data = static_cast<SequenceData*>(v.ptr_.get());
    data->range_start = start;
    data->range_stop = stop;
    data->range_step = step;
    return v;
}

Value Value::dict(std::vector<std::pair<Value, Value>> items) {
    auto data = std::make_shared<DictData>();
    int deepest = 0;
    data->items.reserve(items.size());
    std::unordered_map<std::string_view, size_t> seen;  // string keys while building (views into `items`)
    for (auto& [key, value] : items) {
        deepest = std::max({deepest, key.depth(), value.depth()});
        size_t existing = SIZE_MAX;
        if (key.is_string()) {
            auto it = seen.find(key.str());
            if (it != seen.end()) existing = it->second;
        } else {
            for (size_t i = 0; i < data->items.size(); ++i)
                if (!data->items[i].first.is_string() && py_equal(data->items[i].first, key)) {
                    existing = i;
                    break;
                }
        }
        if (existing != SIZE_MAX) {
            data->items[existing].second = std::move(value);
        } else {
            if (key.is_string()) seen.emplace(key.str(), data->items.size());
            data->items.emplace_back(std::move(key), std::move(value));
        }
    }
    data->depth = container_depth(deepest);
    if (data->items.size() > 8) {
        for (size_t i = 0; i < data->items.size(); ++i)
            if (data->items[i].first.is_string()) data->string_index.emplace(data->items[i].first.str(), i);
    }
    Value v;
    v.kind_ = Kind::Dict;
    v.ptr_ = std::move(data);
    return v;
}

Value Value::object(std::shared_ptr<Object> obj) {
    Value v;
    v.kind_ = Kind::Object;
    v.ptr_ = std::move(obj);
    return v;
}

const std::vector<Value>& Value::items() const { return seq().items; }
SeqKind Value::seq_kind() const { return seq().kind; }

int Value::depth() const {
    if (kind_ == Kind::Seq) return seq().depth;
    if (kind_ == Kind::Dict) return dict().depth;
    return 0;
}

const Value* DictData::find(std::string_view key) const {
    if (!string_index.empty()) {
        auto it = string_index.find(key);
        return it == string_index.end() ? nullptr : &items[it->second].second;
    }
    for (const auto& [k, v] : items)
        if (k.is_string() && k.str() == key) return &v;
    return nullptr;
}

const Value* DictData::find(const Value& key) const {
    if (key.is_string()) return find(std::string_view(key.str()));
    for (const auto& [k, v] : items)
        if (!k.is_string() && py_equal(k, key)) return &v;
    return nullptr;
}

void fail_undefined(const Value& v) { throw Fault(v.undef().kind, v.undef().message); }

const Value* CallArgs::keyword(std::string_view name) const {
    for (const auto& [k, v] : keywords)
        if (k == name) return &v;
    return nullptr;
}

// (Messages are built step by step: GCC 12 warns spuriously about "literal" + std::string&&.)
void Object::append_repr(std::string& out, size_t, int) const {
    out += '<';
    out += type_name();
    out += " object>";
}

Value Object::call(Renderer&, CallArgs) {
    std::string message = "'";
    message += type_name();
    throw_type_error(message + "' object is not callable");
}

std::optional<Value> Object::attribute(Renderer&, std::string_view) { return std::nullopt; }

Value Object::call_method(Renderer&, const std::string& name, CallArgs) {
    std::string message = "'";
    message += type_name();
    throw_type_error(message + "' object has no method '" + name + "'");
}

std::vector<Value> Object::iterate() {
    std::string message = "'";
    message += type_name();
    throw_type_error(message + "' object is not iterable");
}

}  // namespace folio::jinja
