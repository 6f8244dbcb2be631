#include "engine/jinja/template_fold.h"

#include <optional>

#include <nlohmann/json.hpp>

#include "engine/jinja/python_ops.h"
#include "engine/jinja/python_repr.h"
#include "engine/jinja/python_text.h"
#include "engine/jinja/template_renderer.h"

namespace folio::jinja {

namespace {

// Python values Jinja2's Const.from_untrusted accepts (has_safe_repr).
bool safe_repr(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::None:
    case Value::Kind::Bool:
    case Value::Kind::Int:
    case Value::Kind::Float:
    case Value::Kind::String: return true;
    case Value::Kind::Seq: {
        const SeqKind k = v.seq_kind();
        if (k == SeqKind::Range) return true;
        if (k != SeqKind::List && k != SeqKind::Tuple) return false;
        for (const Value& x : v.items())
            if (!safe_repr(x)) return false;
        return true;
    }
    case Value::Kind::Dict:
        for (const auto& [k, x] : v.dict().items)
            if (!safe_repr(k) || !safe_repr(x)) return false;
        return true;
    default: return false;
    }
}

bool context_filter(const std::string& name) {  // @pass_context filters cannot be folded
    return name == "map" || name == "select" || name == "reject" || name == "selectattr" || name == "rejectattr" ||
           name == "random";
}

class Folder {
public:
    explicit Folder(const TemplateAst& ast) : renderer_(ast, nlohmann::ordered_json::object(), settings()) {}

    void body(Body& b) {
        for (auto& st : b) stmt(*st);
    }

private:
    // Small limits: a large constant is left to the renderer, which applies the caller's limits.
    static RenderSettings settings() {
        RenderSettings s;
        s.limits.max_steps = 100'000;
        s.limits.max_output_bytes = 64 * 1024;
        return s;
    }

    struct Impossible {};

    // Jinja2's Node.as_const.
    Value as_const(const Expr& e) {
        switch (e.kind) {
        case ExprKind::Const: return static_cast<const ConstExpr&>(e).value;
        case ExprKind::Tuple:
        case ExprKind::List: {
            std::vector<Value> items;
            for (const auto& x : static_cast<const SeqExpr&>(e).items) items.push_back(as_const(*x));
            return Value::sequence(std::move(items), e.kind == ExprKind::List ? SeqKind::List : SeqKind::Tuple);
        }
        case ExprKind::Dict: {
            std::vector<std::pair<Value, Value>> items;
            for (const auto& [k, v] : static_cast<const DictExpr&>(e).items) {
                Value key = as_const(*k);
                require_hashable(key);
                items.emplace_back(std::move(key), as_const(*v));
            }
            return Value::dict(std::move(items));
        }
        case ExprKind::Getattr: {
            auto& g = static_cast<const GetattrExpr&>(e);
            return renderer_.getattr(as_const(*g.object), g.attr);
        }
        case ExprKind::Getitem: {
            auto& g = static_cast<const GetitemExpr&>(e);
            const Value obj = as_const(*g.object);
            if (g.key->kind == ExprKind::Slice) return lenient_slice(obj, static_cast<const SliceExpr&>(*g.key));
            return renderer_.getitem(obj, as_const(*g.key));
        }
        case ExprKind::Filter: {
            auto& f = static_cast<const FilterExpr&>(e);
            if (!f.fn || !f.subject || context_filter(f.name)) throw Impossible{};
            Value subject = as_const(*f.subject);
            return f.fn(renderer_, std::move(subject), args(f.args));
        }
        case ExprKind::Test: {
            auto& t = static_cast<const TestExpr&>(e);
            if (!t.fn) throw Impossible{};
            const Value subject = as_const(*t.subject);
            return Value::boolean(t.fn(renderer_, subject, args(t.args)));
        }
        case ExprKind::Cond: {
            auto& c = static_cast<const CondExpr&>(e);
            if (truthy(as_const(*c.test))) return as_const(*c.then);
            if (!c.otherwise) throw Impossible{};
            return as_const(*c.otherwise);
        }
        case ExprKind::And:
        case ExprKind::Or: {
            auto& l = static_cast<const LogicExpr&>(e);
            Value left = as_const(*l.left);
            if (truthy(left) == (e.kind == ExprKind::Or)) return left;
            return as_const(*l.right);
        }
        case ExprKind::Not: return Value::boolean(!truthy(as_const(*static_cast<const NotExpr&>(e).operand)));
        case ExprKind::Unary: {
            auto& u = static_cast<const UnaryExpr&>(e);
            const Value v = as_const(*u.operand);
            return u.negate ? py_negate(v) : py_positive(v);
        }
        case ExprKind::Binary: {
            auto& b = static_cast<const BinaryExpr&>(e);
            const Value left = as_const(*b.left);
            const Value right = as_const(*b.right);
            return py_binary(b.op, left, right, renderer_.text_limit());
        }
        case ExprKind::Concat: {
            std::string out;
            for (const auto& x : static_cast<const ConcatExpr&>(e).parts) append_str(out, as_const(*x), renderer_.text_limit());
            return Value::string(std::move(out));
        }
        case ExprKind::Compare: {
            auto& c = static_cast<const CompareExpr&>(e);
            Value value = as_const(*c.first);
            for (const auto& [kind, x] : c.rest) {
                Value next = as_const(*x);
                if (!compare_holds(kind, value, next)) return Value::boolean(false);
                value = std::move(next);
            }
            return Value::boolean(true);
        }
        default: throw Impossible{};  // names, calls, slices on their own
        }
    }

    CallArgs args(const CallArgExprs& a) {
        CallArgs out;
        for (const auto& x : a.positional) out.positional.push_back(as_const(*x));
        for (const auto& [k, x] : a.keywords) out.keywords.emplace_back(k, as_const(*x));
        if (a.star || a.star_star) throw Impossible{};
        return out;
    }

    // env.getitem(obj, slice(...)): Python slicing, but a TypeError gives Undefined.
    Value lenient_slice(const Value& obj, const SliceExpr& s) {
        auto bound = [&](const ExprPtr& x) -> std::optional<Value> { return x ? std::optional<Value>(as_const(*x)) : std::nullopt; };
        const auto start = bound(s.start), stop = bound(s.stop), step = bound(s.step);
        if (obj.is_undefined()) fail_undefined(obj);
        const bool sliceable = obj.is_string() || (obj.is_seq() && (obj.seq_kind() == SeqKind::List || obj.seq_kind() == SeqKind::Tuple ||
                                                                  obj.seq_kind() == SeqKind::GroupTuple || obj.seq_kind() == SeqKind::Range));
        auto integral = [](const std::optional<Value>& v) { return !v || v->is_none() || v->is_integral(); };
        if (!sliceable || !integral(start) || !integral(stop) || !integral(step))
            return Value::undefined(object_type_repr(obj) + " has no element slice(" + repr_or_none(start) + ", " +
                                    repr_or_none(stop) + ", " + repr_or_none(step) + ")");
        throw Impossible{};  // a real slice: leave it to the renderer (same result)
    }

    std::string repr_or_none(const std::optional<Value>& v) { return v ? py_repr(*v, 200) : "None"; }

    std::optional<Value> try_const(const Expr& e) {
        try {
            return as_const(e);
        } catch (const Impossible&) {
        } catch (const std::exception&) {
        }
        return std::nullopt;
    }

    // The optimizer: fold children first, then the node when its value is a plain literal.
    void fold(ExprPtr& e) {
        if (!e) return;
        children(*e);
        if (e->kind == ExprKind::Const || e->kind == ExprKind::Slice) return;
        if (auto v = try_const(*e)) {
            if (safe_repr(*v)) {
                const Pos pos = e->pos;
                e = std::make_unique<ConstExpr>(pos, std::move(*v));
            }
        }
    }

    void fold_args(CallArgExprs& a) {
        for (auto& x : a.positional) fold(x);
        for (auto& kv : a.keywords) fold(kv.second);
        fold(a.star);
        fold(a.star_star);
    }

    void children(Expr& e) {
        switch (e.kind) {
        case ExprKind::Tuple:
        case ExprKind::List:
            for (auto& x : static_cast<SeqExpr&>(e).items) fold(x);
            return;
        case ExprKind::Dict:
            for (auto& [k, v] : static_cast<DictExpr&>(e).items) {
                fold(k);
                fold(v);
            }
            return;
        case ExprKind::Getattr: fold(static_cast<GetattrExpr&>(e).object); return;
        case ExprKind::Getitem: {
            auto& g = static_cast<GetitemExpr&>(e);
            fold(g.object);
            if (g.key->kind == ExprKind::Slice) children(*g.key);
            else fold(g.key);
            return;
        }
        case ExprKind::Slice: {
            auto& s = static_cast<SliceExpr&>(e);
            fold(s.start);
            fold(s.stop);
            fold(s.step);
            return;
        }
        case ExprKind::Call: {
            auto& c = static_cast<CallExpr&>(e);
            fold(c.callee);
            fold_args(c.args);
            return;
        }
        case ExprKind::Filter: {
            auto& f = static_cast<FilterExpr&>(e);
            fold(f.subject);
            fold_args(f.args);
            return;
        }
        case ExprKind::Test: {
            auto& t = static_cast<TestExpr&>(e);
            fold(t.subject);
            fold_args(t.args);
            return;
        }
        case ExprKind::Cond: {
            auto& c = static_cast<CondExpr&>(e);
            fold(c.test);
            fold(c.then);
            fold(c.otherwise);
            return;
        }
        case ExprKind::And:
        case ExprKind::Or: {
            auto& l = static_cast<LogicExpr&>(e);
            fold(l.left);
            fold(l.right);
            return;
        }
        case ExprKind::Not: fold(static_cast<NotExpr&>(e).operand); return;
        case ExprKind::Unary: fold(static_cast<UnaryExpr&>(e).operand); return;
        case ExprKind::Binary: {
            auto& b = static_cast<BinaryExpr&>(e);
            fold(b.left);
            fold(b.right);
            return;
        }
        case ExprKind::Concat:
            for (auto& x : static_cast<ConcatExpr&>(e).parts) fold(x);
            return;
        case ExprKind::Compare: {
            auto& c = static_cast<CompareExpr&>(e);
            fold(c.first);
            for (auto& kv : c.rest) fold(kv.second);
            return;
        }
        default: return;
        }
    }

    void macro(MacroDef& m) {
        for (auto& d : m.defaults) fold(d);
        body(m.body);
    }

    void stmt(Stmt& st) {
        switch (st.kind) {
        case StmtKind::Print: {
            auto& p = static_cast<PrintStmt&>(st);
            // {{ constant }} is printed as str(value) whatever the value (Undefined prints nothing).
            if (auto v = try_const(*p.expr)) {
                try {
                    const Pos pos = p.expr->pos;
                    p.expr = std::make_unique<ConstExpr>(pos, Value::string(py_str(*v, renderer_.text_limit())));
                    return;
                } catch (const std::exception&) {
                }
            }
            fold(p.expr);
            return;
        }
        case StmtKind::If: {
            auto& n = static_cast<IfStmt&>(st);
            fold(n.test);
            body(n.body);
            for (auto& [t, b] : n.elifs) {
                fold(t);
                body(b);
            }
            body(n.else_body);
            return;
        }
        case StmtKind::For: {
            auto& n = static_cast<ForStmt&>(st);
            fold(n.iter);
            fold(n.filter);
            body(n.body);
            body(n.else_body);
            return;
        }
        case StmtKind::Set: fold(static_cast<SetStmt&>(st).value); return;
        case StmtKind::SetBlock: body(static_cast<SetBlockStmt&>(st).body); return;
        case StmtKind::Macro: macro(*static_cast<MacroStmt&>(st).def); return;
        case StmtKind::CallBlock: {
            auto& n = static_cast<CallBlockStmt&>(st);
            macro(*n.caller);
            auto& call = static_cast<CallExpr&>(*n.call);
            fold(call.callee);
            fold_args(call.args);
            return;
        }
        case StmtKind::FilterBlock: body(static_cast<FilterBlockStmt&>(st).body); return;
        case StmtKind::With: {
            auto& n = static_cast<WithStmt&>(st);
            for (auto& v : n.values) fold(v);
            body(n.body);
            return;
        }
        case StmtKind::Block: body(static_cast<BlockStmt&>(st).body); return;
        case StmtKind::Scope: body(static_cast<ScopeStmt&>(st).body); return;
        default: return;
        }
    }

    Renderer renderer_;
};

}  // namespace

void fold_constants(TemplateAst& ast) {
    Folder folder(ast);
    folder.body(ast.body);
}

}  // namespace folio::jinja
