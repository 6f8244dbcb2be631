#pragma once
// The parsed form of a template: expressions and statements as Jinja2's parser builds them, plus the
// variable layout of every scope (see template_scopes.h), so rendering needs no name lookups by string
// except into the render context.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/jinja/python_ops.h"
#include "engine/jinja/template_value.h"

namespace folio::jinja {

struct Pos {
    int line = 1;
    int column = 1;
};

// ---- scopes -------------------------------------------------------------------------------------

// How a frame's variable starts out when the frame is entered (Jinja2's idtracking "load" kinds).
enum class InitKind : uint8_t {
    Param,      // set by whoever creates the frame (loop target, macro argument)
    Resolve,    // looked up in the render context by name
    Alias,      // copied from the enclosing frame's variable (`hops`/`slot`, counted from the parent)
    Undefined,  // unset until assigned
};

struct SlotInit {
    InitKind kind = InitKind::Undefined;
    int hops = 0;
    int slot = -1;
};

struct FrameLayout {
    std::vector<std::string> names;  // slot → variable name
    std::vector<SlotInit> init;
    bool toplevel = false;  // the template's root frame: assignments are exported to the context
};

// Where a name lives: `hops` frames up from the current one, in `slot`; hops < 0 means the render
// context (globals and the caller's variables).
struct VarRef {
    int hops = -1;
    int slot = -1;
};

// ---- expressions --------------------------------------------------------------------------------

enum class ExprKind {
    Const, Name, Tuple, List, Dict, Getattr, Getitem, Slice, Call, Filter, Test, Cond, And, Or, Not,
    Unary, Binary, Concat, Compare,
};

struct Expr {
    explicit Expr(ExprKind k, Pos p) : kind(k), pos(p) {}
    virtual ~Expr() = default;
    ExprKind kind;
    Pos pos;
    int height = 1;  // of the expression tree below; bounded so evaluation cannot overflow the stack
};
using ExprPtr = std::unique_ptr<Expr>;

struct ConstExpr : Expr {
    ConstExpr(Pos p, Value v) : Expr(ExprKind::Const, p), value(std::move(v)) {}
    Value value;
};

struct NameExpr : Expr {
    NameExpr(Pos p, std::string n) : Expr(ExprKind::Name, p), name(std::move(n)) {}
    std::string name;
    VarRef ref;
};

struct SeqExpr : Expr {  // Tuple or List literal
    using Expr::Expr;
    std::vector<ExprPtr> items;
};

struct DictExpr : Expr {
    using Expr::Expr;
    std::vector<std::pair<ExprPtr, ExprPtr>> items;
};

struct GetattrExpr : Expr {
    using Expr::Expr;
    ExprPtr object;
    std::string attr;
};

struct GetitemExpr : Expr {
    using Expr::Expr;
    ExprPtr object;
    ExprPtr key;
};

struct SliceExpr : Expr {
    using Expr::Expr;
    ExprPtr start, stop, step;  // each may be null
};

struct CallArgExprs {
    std::vector<ExprPtr> positional;
    std::vector<std::pair<std::string, ExprPtr>> keywords;
    ExprPtr star;       // *args
    ExprPtr star_star;  // **kwargs
};

class Renderer;
using FilterFn = Value (*)(Renderer& r, Value subject, CallArgs args);
using TestFn = bool (*)(Renderer& r, const Value& subject, CallArgs args);

struct CallExpr : Expr {
    using Expr::Expr;
    ExprPtr callee;
    CallArgExprs args;
};

struct FilterExpr : Expr {
    using Expr::Expr;
    ExprPtr subject;  // null in {% filter %} and {% set x | f %} blocks
    std::string name;
    CallArgExprs args;
    FilterFn fn = nullptr;
    std::string missing_message;  // when fn is null: the error evaluating it raises
};

struct TestExpr : Expr {
    using Expr::Expr;
    ExprPtr subject;
    std::string name;
    CallArgExprs args;
    TestFn fn = nullptr;
    std::string missing_message;
};

struct CondExpr : Expr {
    using Expr::Expr;
    ExprPtr test, then, otherwise;  // otherwise may be null: Undefined when the test fails
};

struct LogicExpr : Expr {  // And / Or
    using Expr::Expr;
    ExprPtr left, right;
};

struct NotExpr : Expr {
    using Expr::Expr;
    ExprPtr operand;
};

struct UnaryExpr : Expr {
    using Expr::Expr;
    bool negate = true;
    ExprPtr operand;
};

struct BinaryExpr : Expr {
    using Expr::Expr;
    BinaryOp op = BinaryOp::Add;
    ExprPtr left, right;
};

struct ConcatExpr : Expr {
    using Expr::Expr;
    std::vector<ExprPtr> parts;
};

enum class CompareKind { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn };

struct CompareExpr : Expr {
    using Expr::Expr;
    ExprPtr first;
    std::vector<std::pair<CompareKind, ExprPtr>> rest;
};

// ---- statements ---------------------------------------------------------------------------------

enum class StmtKind {
    Data, Print, If, For, Set, SetBlock, Macro, CallBlock, FilterBlock, With, Block, Scope, Break, Continue,
};

struct Stmt {
    explicit Stmt(StmtKind k, Pos p) : kind(k), pos(p) {}
    virtual ~Stmt() = default;
    StmtKind kind;
    Pos pos;
};
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

// An assignment target: a name, a tuple of targets (unpacking) or namespace.attr.
struct Target {
    enum class Kind { Name, Tuple, NsAttr } kind = Kind::Name;
    Pos pos;
    std::string name;  // Name, and the namespace's name for NsAttr
    std::string attr;  // NsAttr
    VarRef ref;
    std::vector<Target> items;  // Tuple
};

struct DataStmt : Stmt {
    DataStmt(Pos p, std::string t) : Stmt(StmtKind::Data, p), text(std::move(t)) {}
    std::string text;
};

struct PrintStmt : Stmt {
    using Stmt::Stmt;
    ExprPtr expr;
};

struct IfStmt : Stmt {
    using Stmt::Stmt;
    ExprPtr test;
    Body body;
    std::vector<std::pair<ExprPtr, Body>> elifs;
    Body else_body;
};

struct ForStmt : Stmt {
    using Stmt::Stmt;
    Target target;       // assigned in body_frame
    Target test_target;  // the same names, assigned in test_frame
    ExprPtr iter;
    ExprPtr filter;  // `for x in xs if cond`
    bool recursive = false;
    Body body;
    Body else_body;
    FrameLayout body_frame, test_frame, else_frame;
    int loop_slot = -1;  // the `loop` variable in body_frame, when the body uses it
};

struct SetStmt : Stmt {
    using Stmt::Stmt;
    Target target;
    ExprPtr value;
};

struct SetBlockStmt : Stmt {
    using Stmt::Stmt;
    Target target;
    ExprPtr filter;  // null, or a FilterExpr chain whose innermost subject is null
    Body body;
    FrameLayout frame;
};

// A macro, or the anonymous `caller` macro of a {% call %} block.
struct MacroDef {
    std::string name;  // "caller" for call blocks
    Pos pos;
    std::vector<std::string> params;
    std::vector<ExprPtr> defaults;  // for the last defaults.size() params
    Body body;
    FrameLayout frame;
    std::vector<int> param_slots;
    int caller_slot = -1, kwargs_slot = -1, varargs_slot = -1;  // when the body uses them
    bool explicit_caller = false;  // "caller" is one of the params
    bool accesses_caller = false;  // the body reads `caller` (so a call block may pass one)
};

struct MacroStmt : Stmt {
    using Stmt::Stmt;
    std::unique_ptr<MacroDef> def;
    Target target;
};

struct CallBlockStmt : Stmt {
    using Stmt::Stmt;
    std::unique_ptr<MacroDef> caller;
    ExprPtr call;  // a CallExpr
};

struct FilterBlockStmt : Stmt {
    using Stmt::Stmt;
    ExprPtr filter;  // FilterExpr chain with a null innermost subject
    Body body;
    FrameLayout frame;
};

struct WithStmt : Stmt {
    using Stmt::Stmt;
    std::vector<Target> targets;
    std::vector<ExprPtr> values;
    Body body;
    FrameLayout frame;
};

struct BlockStmt : Stmt {  // {% block name %}: rendered in place (there is no template inheritance)
    using Stmt::Stmt;
    std::string name;
    bool scoped = false;
    Body body;
    FrameLayout frame;
};

struct ScopeStmt : Stmt {  // transformers' {% generation %}: its body in a scope of its own
    using Stmt::Stmt;
    Body body;
    FrameLayout frame;
};

struct TemplateAst {
    Body body;
    FrameLayout root;
};

}  // namespace folio::jinja
