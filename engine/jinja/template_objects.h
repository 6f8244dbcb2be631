#pragma once
// The objects templates handle besides plain data, each behaving as its Jinja2/Python counterpart:
// namespace(), macros (and the `caller` of a call block), the `loop` variable, methods bound to a
// value (`text.strip`), global functions, generators (what select/map/... return), cycler() and
// joiner().
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/jinja/template_ast.h"
#include "engine/jinja/template_value.h"

namespace folio::jinja {

struct Frame;

class NamespaceObject : public Object {
public:
    std::string type_name() const override { return "Namespace"; }
    std::string module() const override { return "jinja2.utils"; }
    void append_repr(std::string& out, size_t limit, int depth) const override;
    std::optional<Value> attribute(Renderer& r, std::string_view name) override;
    void set(const std::string& name, Value v);
    void set(const Value& key, Value v);
    void clear() override { attrs_.clear(); }
    std::vector<std::pair<Value, Value>> take_all() { return std::move(attrs_); }

private:
    std::vector<std::pair<Value, Value>> attrs_;
    mutable bool in_repr_ = false;  // a namespace inside itself prints as {...}, as Python's repr does
};

class MacroObject : public Object {
public:
    // `closure` is the frame the macro was defined in; the renderer keeps it alive for the render.
    MacroObject(const MacroDef& def, Frame* closure) : def_(def), closure_(closure) {}
    std::string type_name() const override { return "Macro"; }
    std::string module() const override { return "jinja2.runtime"; }
    void append_repr(std::string& out, size_t limit, int depth) const override;
    bool callable() const override { return true; }
    Value call(Renderer& r, CallArgs args) override;
    std::optional<Value> attribute(Renderer& r, std::string_view name) override;

private:
    const MacroDef& def_;
    Frame* closure_;
};

// Jinja2's LoopContext. Items come from the loop's source through its `if` filter, evaluated lazily
// (as Jinja does) so that loop.length and loop.last only look ahead when asked.
class LoopObject : public Object {
public:
    using Accept = std::function<bool(const Value&)>;
    LoopObject(std::vector<Value> source, Accept accept, int depth0, const ForStmt* recursive, Frame* outer)
        : source_(std::move(source)), accept_(std::move(accept)), depth0_(depth0), recursive_(recursive),
          outer_(outer) {}
    bool next(Value& item);  // the next item, or false at the end

    std::string type_name() const override { return "LoopContext"; }
    std::string module() const override { return "jinja2.runtime"; }
    void append_repr(std::string& out, size_t limit, int depth) const override;
    bool callable() const override { return true; }
    Value call(Renderer& r, CallArgs args) override;
    std::optional<Value> attribute(Renderer& r, std::string_view name) override;
    Value call_method(Renderer& r, const std::string& name, CallArgs args) override;
    std::optional<int64_t> length() const override;
    bool truthy() const override { return length().value_or(1) != 0; }
    bool iterable() const override { return true; }
    std::vector<Value> iterate() override;  // what is left of the loop, consumed

private:
    bool fetch() const;  // pulls one accepted item from the source into ahead_
    int64_t total() const;

    mutable std::vector<Value> source_;
    mutable size_t pos_ = 0;
    Accept accept_;
    mutable std::deque<Value> ahead_;
    int64_t index0_ = -1;
    Value current_ = Value::missing(), before_ = Value::missing();
    Value last_changed_ = Value::missing();
    int depth0_;
    const ForStmt* recursive_;
    Frame* outer_;
};

// A method bound to its receiver: "abc".upper, d.items, loop.cycle, ...
class BoundMethod : public Object {
public:
    BoundMethod(Value receiver, std::string name) : receiver_(std::move(receiver)), name_(std::move(name)) {}
    std::string type_name() const override { return "builtin_function_or_method"; }
    void append_repr(std::string& out, size_t limit, int depth) const override;
    bool callable() const override { return true; }
    Value call(Renderer& r, CallArgs args) override;

private:
    Value receiver_;
    std::string name_;
};

class BuiltinFunction : public Object {
public:
    using Fn = Value (*)(Renderer& r, CallArgs& args);
    BuiltinFunction(std::string name, Fn fn) : name_(std::move(name)), fn_(fn) {}
    std::string type_name() const override { return "function"; }
    void append_repr(std::string& out, size_t limit, int depth) const override;
    bool callable() const override { return true; }
    Value call(Renderer& r, CallArgs args) override { return fn_(r, args); }

private:
    std::string name_;
    Fn fn_;
};

// A one-pass iterator: what map/select/reject/unique/batch/... and reverse() return in Jinja2.
class GeneratorObject : public Object {
public:
    GeneratorObject(std::vector<Value> items, std::string origin, std::string type = "generator")
        : items_(std::move(items)), origin_(std::move(origin)), type_(std::move(type)) {}
    std::string type_name() const override { return type_; }
    void append_repr(std::string& out, size_t limit, int depth) const override;
    bool iterable() const override { return true; }
    std::vector<Value> iterate() override;
    std::optional<Value> next_item();  // one item, as next(generator) takes

private:
    std::vector<Value> items_;
    size_t pos_ = 0;
    std::string origin_;
    std::string type_;
};

class CyclerObject : public Object {
public:
    explicit CyclerObject(std::vector<Value> items) : items_(std::move(items)) {}
    std::string type_name() const override { return "Cycler"; }
    std::string module() const override { return "jinja2.utils"; }
    std::optional<Value> attribute(Renderer& r, std::string_view name) override;
    Value call_method(Renderer& r, const std::string& name, CallArgs args) override;

private:
    std::vector<Value> items_;
    size_t pos_ = 0;
};

class JoinerObject : public Object {
public:
    explicit JoinerObject(Value sep) : sep_(std::move(sep)) {}
    std::string type_name() const override { return "Joiner"; }
    std::string module() const override { return "jinja2.utils"; }
    bool callable() const override { return true; }
    Value call(Renderer& r, CallArgs args) override;

private:
    Value sep_;
    bool used_ = false;
};

// A method of an object (loop.cycle, cycler.next), bound to it.
class ObjectMethod : public Object {
public:
    ObjectMethod(std::shared_ptr<Object> target, std::string name) : target_(std::move(target)), name_(std::move(name)) {}
    std::string type_name() const override { return "method"; }
    void append_repr(std::string& out, size_t limit, int depth) const override;
    bool callable() const override { return true; }
    Value call(Renderer& r, CallArgs args) override { return target_->call_method(r, name_, std::move(args)); }

private:
    std::shared_ptr<Object> target_;
    std::string name_;
};

}  // namespace folio::jinja
