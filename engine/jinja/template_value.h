#pragma once
// The values a template computes with, modelled on the Python objects Jinja2 would hold: None, bool,
// int, float, str, list/tuple (and range and dict views), dict (insertion-ordered), Jinja's Undefined,
// and objects (namespace(), macros, loop, bound methods, generators, ...).
//
// Strings and containers are immutable and shared (copying a Value is cheap), as the sandbox
// transformers uses forbids mutating lists and dicts. Container nesting is capped (kMaxValueDepth) so
// that printing, comparing or destroying a value can never exhaust the stack.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace folio::jinja {

inline constexpr int kMaxValueDepth = 200;

// Python's exception classes, for the message a user sees ("TypeError: ...").
enum class FaultKind {
    TypeError,
    ValueError,
    UndefinedError,
    SecurityError,
    ZeroDivisionError,
    OverflowError,
    KeyError,
    IndexError,
    AttributeError,
    AssertionError,
    TemplateRuntimeError,
    FilterArgumentError,
    LimitExceeded,  // one of the renderer's safety limits (output size, steps, depth)
};
const char* fault_kind_name(FaultKind kind);

// A runtime failure inside an operation. The renderer catches it and adds the template position.
class Fault : public std::runtime_error {
public:
    Fault(FaultKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    FaultKind kind() const { return kind_; }

private:
    FaultKind kind_;
};

[[noreturn]] void throw_type_error(const std::string& message);
[[noreturn]] void throw_value_error(const std::string& message);

class Value;
class Object;

enum class SeqKind : uint8_t { List, Tuple, GroupTuple, Range, DictKeys, DictValues, DictItems };

struct SequenceData;
struct DictData;
struct UndefinedData;

class Value {
public:
    enum class Kind : uint8_t { Missing, Undefined, None, Bool, Int, Float, String, Seq, Dict, Object };

    Value() : kind_(Kind::None), i_(0) {}
    static Value none() { return Value(); }
    static Value missing();  // an unassigned variable slot; never seen by template code
    // Jinja's Undefined. `message` is what using it says ("'x' is undefined"); `kind` is the error used
    // (SecurityError for an unsafe attribute).
    static Value undefined(std::string message, FaultKind kind = FaultKind::UndefinedError);
    static Value boolean(bool b);
    static Value integer(int64_t i);
    static Value number(double d);
    static Value string(std::string s);
    // markupsafe's Markup: a str marked safe (|safe, |escape); + and % escape the other operand.
    static Value markup(std::string s);
    static Value sequence(std::vector<Value> items, SeqKind kind = SeqKind::List);
    static Value list(std::vector<Value> items) { return sequence(std::move(items), SeqKind::List); }
    static Value tuple(std::vector<Value> items) { return sequence(std::move(items), SeqKind::Tuple); }
    static Value range(int64_t start, int64_t stop, int64_t step);  // caller checks the size
    static Value dict(std::vector<std::pair<Value, Value>> items);  // later duplicates win, first position kept
    static Value object(std::shared_ptr<Object> obj);

    Kind kind() const { return kind_; }
    bool is_missing() const { return kind_ == Kind::Missing; }
    bool is_undefined() const { return kind_ == Kind::Undefined; }
    bool is_none() const { return kind_ == Kind::None; }
    bool is_bool() const { return kind_ == Kind::Bool; }
    bool is_int() const { return kind_ == Kind::Int; }     // not bool
    bool is_float() const { return kind_ == Kind::Float; }
    bool is_number() const { return kind_ == Kind::Bool || kind_ == Kind::Int || kind_ == Kind::Float; }
    bool is_integral() const { return kind_ == Kind::Bool || kind_ == Kind::Int; }  // Python int (bool included)
    bool is_string() const { return kind_ == Kind::String; }  // Markup included, as in Python
    bool is_markup() const { return kind_ == Kind::String && markup_; }
    bool is_seq() const { return kind_ == Kind::Seq; }
    bool is_dict() const { return kind_ == Kind::Dict; }
    bool is_object() const { return kind_ == Kind::Object; }

    bool as_bool() const { return b_; }
    int64_t as_int() const { return kind_ == Kind::Bool ? int64_t(b_) : i_; }  // Bool or Int
    double as_float() const { return kind_ == Kind::Float ? f_ : double(as_int()); }  // any number
    const std::string& str() const { return *static_cast<const std::string*>(ptr_.get()); }
    const SequenceData& seq() const { return *static_cast<const SequenceData*>(ptr_.get()); }
    const std::vector<Value>& items() const;  // a Seq's elements
    SeqKind seq_kind() const;
    const DictData& dict() const { return *static_cast<const DictData*>(ptr_.get()); }
    Object* obj() const { return static_cast<Object*>(ptr_.get()); }
    std::shared_ptr<Object> obj_ptr() const { return std::static_pointer_cast<Object>(ptr_); }
    const UndefinedData& undef() const { return *static_cast<const UndefinedData*>(ptr_.get()); }
    const void* identity() const { return ptr_.get(); }

    // Nesting depth of containers (0 for scalars and objects).
    int depth() const;

private:
    Kind kind_;
    bool markup_ = false;
    union {
        bool b_;
        int64_t i_;
        double f_;
    };
    std::shared_ptr<void> ptr_;
};

struct SequenceData {
    std::vector<Value> items;
    SeqKind kind = SeqKind::List;
    int depth = 1;
    int64_t range_start = 0, range_stop = 0, range_step = 1;  // SeqKind::Range, for repr
};

struct DictData {
    std::vector<std::pair<Value, Value>> items;
    int depth = 1;
    // Position of each string key, built for larger dicts so lookups stay O(1).
    std::unordered_map<std::string_view, size_t> string_index;

    // The value stored under `key` (Python key equality: 1 == 1.0 == True), or nullptr.
    const Value* find(const Value& key) const;
    const Value* find(std::string_view key) const;
};

struct UndefinedData {
    std::string message;
    FaultKind kind;
};

// Throws the error an Undefined raises when it is used for anything but printing, testing or
// iterating.
[[noreturn]] void fail_undefined(const Value& v);

// Arguments of a call as Python sees them: positional, then keyword (in call order).
struct CallArgs {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keywords;

    const Value* keyword(std::string_view name) const;
};

class Renderer;

// Objects with behaviour: namespace(), macros, loop, methods bound to a value, generators, ...
class Object : public std::enable_shared_from_this<Object> {
public:
    virtual ~Object() = default;
    virtual std::string type_name() const = 0;  // Python's type(x).__name__
    virtual std::string module() const { return ""; }  // "" for Python built-ins, else e.g. "jinja2.utils"
    // Python's repr(); `limit` and `depth` are passed on to append_repr() for contained values.
    virtual void append_repr(std::string& out, size_t limit, int depth) const;
    virtual bool callable() const { return false; }
    virtual Value call(Renderer& r, CallArgs args);
    // An attribute the object has, or nullopt.
    virtual std::optional<Value> attribute(Renderer& r, std::string_view name);
    // Calls one of the object's methods (the target of an ObjectMethod from attribute()).
    virtual Value call_method(Renderer& r, const std::string& name, CallArgs args);
    virtual bool iterable() const { return false; }
    // The items of an iteration (a generator is consumed by it).
    virtual std::vector<Value> iterate();
    virtual std::optional<int64_t> length() const { return std::nullopt; }
    virtual bool truthy() const { return true; }
    // Drops references to other values, to break cycles once a render is over.
    virtual void clear() {}
};

}  // namespace folio::jinja
