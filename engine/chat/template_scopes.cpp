#include "engine/chat/template_scopes.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

#include "engine/chat/template_builtins.h"
#include "engine/chat/template_error.h"

namespace folio::jinja {

namespace {

[[noreturn]] void fail(const std::string& message, Pos pos) { throw TemplateSyntaxError(message, pos.line, pos.column); }

// One scope's symbol table while it is analysed (Jinja2's idtracking.Symbols). Branch copies of an
// {% if %} share the layout, so a name gets the same slot in every branch.
struct Symbols {
    Symbols* parent = nullptr;
    FrameLayout* layout = nullptr;
    std::map<std::string, int> refs;
    std::map<int, SlotInit> loads;
    std::set<std::string> stores;

    int slot_of(const std::string& name) {
        for (size_t i = 0; i < layout->names.size(); ++i)
            if (layout->names[i] == name) return int(i);
        layout->names.push_back(name);
        layout->init.push_back(SlotInit{});
        return int(layout->names.size() - 1);
    }
    void define(const std::string& name, SlotInit init) {
        const int slot = slot_of(name);
        refs[name] = slot;
        loads[slot] = init;
    }
    std::optional<VarRef> find(const std::string& name) const {
        int hops = 0;
        for (const Symbols* s = this; s; s = s->parent, ++hops) {
            auto it = s->refs.find(name);
            if (it != s->refs.end()) return VarRef{hops, it->second};
        }
        return std::nullopt;
    }
    void load(const std::string& name) {
        if (!find(name)) define(name, {InitKind::Resolve, 0, -1});
    }
    void store(const std::string& name) {
        stores.insert(name);
        if (refs.count(name)) return;
        if (parent) {
            if (auto outer = parent->find(name)) {
                define(name, {InitKind::Alias, outer->hops, outer->slot});
                return;
            }
        }
        define(name, {InitKind::Undefined, 0, -1});
    }
    void declare_parameter(const std::string& name) {
        stores.insert(name);
        define(name, {InitKind::Param, 0, -1});
    }
    // Merges the symbol tables of an {% if %}'s branches (Jinja2 3.1.2's rule: a name assigned in only
    // some branches starts out as the enclosing value, or the context's).
    void branch_update(const std::vector<Symbols>& branches) {
        std::map<std::string, int> counts;
        for (const auto& b : branches)
            for (const auto& name : b.stores)
                if (!stores.count(name)) ++counts[name];
        for (const auto& b : branches) {
            for (const auto& [k, v] : b.refs) refs[k] = v;
            for (const auto& [k, v] : b.loads) loads[k] = v;
            stores.insert(b.stores.begin(), b.stores.end());
        }
        for (const auto& [name, count] : counts) {
            if (count == int(branches.size())) continue;
            const int slot = refs.at(name);
            if (parent) {
                if (auto outer = parent->find(name)) {
                    loads[slot] = {InitKind::Alias, outer->hops, outer->slot};
                    continue;
                }
            }
            loads[slot] = {InitKind::Resolve, 0, -1};
        }
    }
    void finish() {
        for (const auto& [slot, init] : loads) layout->init[size_t(slot)] = init;
    }
};

// ---- FrameSymbolVisitor: what one scope's own statements read and assign ----

void sym_expr(const Expr* e, Symbols& s);

void sym_args(const CallArgExprs& a, Symbols& s) {
    for (const auto& x : a.positional) sym_expr(x.get(), s);
    for (const auto& kv : a.keywords) sym_expr(kv.second.get(), s);
    sym_expr(a.star.get(), s);
    sym_expr(a.star_star.get(), s);
}

void sym_expr(const Expr* e, Symbols& s) {
    if (!e) return;
    switch (e->kind) {
    case ExprKind::Const: return;
    case ExprKind::Name: s.load(static_cast<const NameExpr*>(e)->name); return;
    case ExprKind::Tuple:
    case ExprKind::List:
        for (const auto& x : static_cast<const SeqExpr*>(e)->items) sym_expr(x.get(), s);
        return;
    case ExprKind::Dict:
        for (const auto& [k, v] : static_cast<const DictExpr*>(e)->items) {
            sym_expr(k.get(), s);
            sym_expr(v.get(), s);
        }
        return;
    case ExprKind::Getattr: sym_expr(static_cast<const GetattrExpr*>(e)->object.get(), s); return;
    case ExprKind::Getitem: {
        auto* g = static_cast<const GetitemExpr*>(e);
        sym_expr(g->object.get(), s);
        sym_expr(g->key.get(), s);
        return;
    }
    case ExprKind::Slice: {
        auto* sl = static_cast<const SliceExpr*>(e);
        sym_expr(sl->start.get(), s);
        sym_expr(sl->stop.get(), s);
        sym_expr(sl->step.get(), s);
        return;
    }
    case ExprKind::Call: {
        auto* c = static_cast<const CallExpr*>(e);
        sym_expr(c->callee.get(), s);
        sym_args(c->args, s);
        return;
    }
    case ExprKind::Filter: {
        auto* f = static_cast<const FilterExpr*>(e);
        sym_expr(f->subject.get(), s);
        sym_args(f->args, s);
        return;
    }
    case ExprKind::Test: {
        auto* t = static_cast<const TestExpr*>(e);
        sym_expr(t->subject.get(), s);
        sym_args(t->args, s);
        return;
    }
    case ExprKind::Cond: {
        auto* c = static_cast<const CondExpr*>(e);
        sym_expr(c->test.get(), s);
        sym_expr(c->then.get(), s);
        sym_expr(c->otherwise.get(), s);
        return;
    }
    case ExprKind::And:
    case ExprKind::Or: {
        auto* l = static_cast<const LogicExpr*>(e);
        sym_expr(l->left.get(), s);
        sym_expr(l->right.get(), s);
        return;
    }
    case ExprKind::Not: sym_expr(static_cast<const NotExpr*>(e)->operand.get(), s); return;
    case ExprKind::Unary: sym_expr(static_cast<const UnaryExpr*>(e)->operand.get(), s); return;
    case ExprKind::Binary: {
        auto* b = static_cast<const BinaryExpr*>(e);
        sym_expr(b->left.get(), s);
        sym_expr(b->right.get(), s);
        return;
    }
    case ExprKind::Concat:
        for (const auto& x : static_cast<const ConcatExpr*>(e)->parts) sym_expr(x.get(), s);
        return;
    case ExprKind::Compare: {
        auto* c = static_cast<const CompareExpr*>(e);
        sym_expr(c->first.get(), s);
        for (const auto& [k, x] : c->rest) sym_expr(x.get(), s);
        return;
    }
    }
}

void sym_target(const Target& t, Symbols& s, bool as_param) {
    switch (t.kind) {
    case Target::Kind::Name:
        if (as_param) s.declare_parameter(t.name);
        else s.store(t.name);
        return;
    case Target::Kind::Tuple:
        for (const auto& item : t.items) sym_target(item, s, as_param);
        return;
    case Target::Kind::NsAttr: s.load(t.name); return;
    }
}

void sym_stmt(const Stmt& st, Symbols& s);

void sym_body(const Body& body, Symbols& s) {
    for (const auto& st : body) sym_stmt(*st, s);
}

Symbols branch_copy(const Symbols& s, const std::function<void(Symbols&)>& visit) {
    Symbols copy = s;
    visit(copy);
    return copy;
}

void sym_stmt(const Stmt& st, Symbols& s) {
    switch (st.kind) {
    case StmtKind::Data:
    case StmtKind::Block:
    case StmtKind::Scope:
    case StmtKind::Break:
    case StmtKind::Continue: return;
    case StmtKind::Print: sym_expr(static_cast<const PrintStmt&>(st).expr.get(), s); return;
    case StmtKind::If: {
        auto& n = static_cast<const IfStmt&>(st);
        sym_expr(n.test.get(), s);
        std::vector<Symbols> branches;
        branches.push_back(branch_copy(s, [&](Symbols& b) { sym_body(n.body, b); }));
        branches.push_back(branch_copy(s, [&](Symbols& b) {
            for (const auto& [test, body] : n.elifs) {  // each elif is an If of its own in Jinja's tree
                sym_expr(test.get(), b);
                std::vector<Symbols> inner;
                inner.push_back(branch_copy(b, [&](Symbols& x) { sym_body(body, x); }));
                inner.push_back(b);
                inner.push_back(b);
                b.branch_update(inner);
            }
        }));
        branches.push_back(branch_copy(s, [&](Symbols& b) { sym_body(n.else_body, b); }));
        s.branch_update(branches);
        return;
    }
    case StmtKind::For: sym_expr(static_cast<const ForStmt&>(st).iter.get(), s); return;
    case StmtKind::Set: {
        auto& n = static_cast<const SetStmt&>(st);
        sym_expr(n.value.get(), s);
        sym_target(n.target, s, false);
        return;
    }
    case StmtKind::SetBlock: sym_target(static_cast<const SetBlockStmt&>(st).target, s, false); return;
    case StmtKind::Macro: s.store(static_cast<const MacroStmt&>(st).def->name); return;
    case StmtKind::CallBlock: sym_expr(static_cast<const CallBlockStmt&>(st).call.get(), s); return;
    case StmtKind::FilterBlock: sym_expr(static_cast<const FilterBlockStmt&>(st).filter.get(), s); return;
    case StmtKind::With:
        for (const auto& v : static_cast<const WithStmt&>(st).values) sym_expr(v.get(), s);
        return;
    }
}

// ---- UndeclaredNameVisitor: does a body read `names` before assigning them? ----

struct Undeclared {
    std::set<std::string> names;
    std::set<std::string> found;

    void name(const std::string& n, bool load) {
        if (!names.count(n)) return;
        if (load) found.insert(n);
        else names.erase(n);
    }
    void expr(const Expr* e) {
        if (!e) return;
        switch (e->kind) {
        case ExprKind::Const: return;
        case ExprKind::Name: name(static_cast<const NameExpr*>(e)->name, true); return;
        default: break;
        }
        // Loads only below this point: reuse the symbol walk's traversal order.
        Symbols probe;
        FrameLayout layout;
        probe.layout = &layout;
        sym_expr(e, probe);
        for (const auto& n : layout.names) name(n, true);
    }
    void target(const Target& t) {
        if (t.kind == Target::Kind::Name) name(t.name, false);
        else if (t.kind == Target::Kind::NsAttr) name(t.name, true);
        else
            for (const auto& item : t.items) target(item);
    }
    void args(const CallArgExprs& a) {
        for (const auto& x : a.positional) expr(x.get());
        for (const auto& kv : a.keywords) expr(kv.second.get());
        expr(a.star.get());
        expr(a.star_star.get());
    }
    void macro(const MacroDef& m) {
        for (const auto& p : m.params) name(p, false);
        for (const auto& d : m.defaults) expr(d.get());
        body(m.body);
    }
    void body(const Body& b) {
        for (const auto& st : b) stmt(*st);
    }
    void stmt(const Stmt& st) {
        switch (st.kind) {
        case StmtKind::Data:
        case StmtKind::Block:
        case StmtKind::Break:
        case StmtKind::Continue: return;
        case StmtKind::Print: expr(static_cast<const PrintStmt&>(st).expr.get()); return;
        case StmtKind::If: {
            auto& n = static_cast<const IfStmt&>(st);
            expr(n.test.get());
            body(n.body);
            for (const auto& [t, b] : n.elifs) {
                expr(t.get());
                body(b);
            }
            body(n.else_body);
            return;
        }
        case StmtKind::For: {
            auto& n = static_cast<const ForStmt&>(st);
            target(n.target);
            expr(n.iter.get());
            body(n.body);
            body(n.else_body);
            expr(n.filter.get());
            return;
        }
        case StmtKind::Set: {
            auto& n = static_cast<const SetStmt&>(st);
            target(n.target);
            expr(n.value.get());
            return;
        }
        case StmtKind::SetBlock: {
            auto& n = static_cast<const SetBlockStmt&>(st);
            target(n.target);
            expr(n.filter.get());
            body(n.body);
            return;
        }
        case StmtKind::Macro: macro(*static_cast<const MacroStmt&>(st).def); return;
        case StmtKind::CallBlock: {
            auto& n = static_cast<const CallBlockStmt&>(st);
            expr(n.call.get());
            macro(*n.caller);
            return;
        }
        case StmtKind::FilterBlock: {
            auto& n = static_cast<const FilterBlockStmt&>(st);
            body(n.body);
            expr(n.filter.get());
            return;
        }
        case StmtKind::With: {
            auto& n = static_cast<const WithStmt&>(st);
            for (const auto& t : n.targets) target(t);
            for (const auto& v : n.values) expr(v.get());
            body(n.body);
            return;
        }
        case StmtKind::Scope: body(static_cast<const ScopeStmt&>(st).body); return;
        }
    }
};

std::set<std::string> undeclared(const Body& b, std::set<std::string> names) {
    Undeclared u{std::move(names), {}};
    u.body(b);
    return u.found;
}

// Does the subtree assign to a variable named `loop`?
bool stores_loop(const Target& t) {
    if (t.kind == Target::Kind::Name) return t.name == "loop";
    if (t.kind == Target::Kind::Tuple)
        for (const auto& item : t.items)
            if (stores_loop(item)) return true;
    return false;
}

const Target* find_loop_store(const Body& b);

const Target* find_loop_store(const Stmt& st) {
    switch (st.kind) {
    case StmtKind::Set: {
        auto& t = static_cast<const SetStmt&>(st).target;
        return stores_loop(t) ? &t : nullptr;
    }
    case StmtKind::SetBlock: {
        auto& n = static_cast<const SetBlockStmt&>(st);
        if (stores_loop(n.target)) return &n.target;
        return find_loop_store(n.body);
    }
    case StmtKind::For: {
        auto& n = static_cast<const ForStmt&>(st);
        if (stores_loop(n.target)) return &n.target;
        if (auto* t = find_loop_store(n.body)) return t;
        return find_loop_store(n.else_body);
    }
    case StmtKind::If: {
        auto& n = static_cast<const IfStmt&>(st);
        if (auto* t = find_loop_store(n.body)) return t;
        for (const auto& [test, body] : n.elifs)
            if (auto* t = find_loop_store(body)) return t;
        return find_loop_store(n.else_body);
    }
    case StmtKind::Macro: return find_loop_store(static_cast<const MacroStmt&>(st).def->body);
    case StmtKind::CallBlock: return find_loop_store(static_cast<const CallBlockStmt&>(st).caller->body);
    case StmtKind::FilterBlock: return find_loop_store(static_cast<const FilterBlockStmt&>(st).body);
    case StmtKind::With: return find_loop_store(static_cast<const WithStmt&>(st).body);
    case StmtKind::Block: return find_loop_store(static_cast<const BlockStmt&>(st).body);
    case StmtKind::Scope: return find_loop_store(static_cast<const ScopeStmt&>(st).body);
    default: return nullptr;
    }
}

const Target* find_loop_store(const Body& b) {
    for (const auto& st : b)
        if (auto* t = find_loop_store(*st)) return t;
    return nullptr;
}

// ---- the compile walk: resolve names, analyse nested scopes, report compile errors ----

struct Context {
    bool soft = false;     // inside an {% if %} or inline if: unknown filters fail only if evaluated
    bool in_loop = false;  // `break`/`continue` allowed
};

class Compiler {
public:
    void frame_body(const Body& body, Symbols& s, Context ctx) {
        for (const auto& st : body) stmt(*st, s, ctx);
    }

    void expr(Expr* e, Symbols& s, Context ctx) {
        if (!e) return;
        switch (e->kind) {
        case ExprKind::Const: return;
        case ExprKind::Name: {
            auto* n = static_cast<NameExpr*>(e);
            if (auto ref = s.find(n->name)) n->ref = *ref;
            return;
        }
        case ExprKind::Tuple:
        case ExprKind::List:
            for (auto& x : static_cast<SeqExpr*>(e)->items) expr(x.get(), s, ctx);
            return;
        case ExprKind::Dict:
            for (auto& [k, v] : static_cast<DictExpr*>(e)->items) {
                expr(k.get(), s, ctx);
                expr(v.get(), s, ctx);
            }
            return;
        case ExprKind::Getattr: expr(static_cast<GetattrExpr*>(e)->object.get(), s, ctx); return;
        case ExprKind::Getitem: {
            auto* g = static_cast<GetitemExpr*>(e);
            expr(g->object.get(), s, ctx);
            expr(g->key.get(), s, ctx);
            return;
        }
        case ExprKind::Slice: {
            auto* sl = static_cast<SliceExpr*>(e);
            expr(sl->start.get(), s, ctx);
            expr(sl->stop.get(), s, ctx);
            expr(sl->step.get(), s, ctx);
            return;
        }
        case ExprKind::Call: {
            auto* c = static_cast<CallExpr*>(e);
            expr(c->callee.get(), s, ctx);
            args(c->args, s, ctx);
            return;
        }
        case ExprKind::Filter: {
            auto* f = static_cast<FilterExpr*>(e);
            expr(f->subject.get(), s, ctx);
            args(f->args, s, ctx);
            if (!f->fn) {
                if (is_unimplemented_filter(f->name))
                    f->missing_message = "the '" + f->name + "' filter is not supported by this template engine";
                else if (ctx.soft)
                    f->missing_message = "No filter named '" + f->name + "' found.";
                else
                    fail("No filter named '" + f->name + "'.", f->pos);
            }
            return;
        }
        case ExprKind::Test: {
            auto* t = static_cast<TestExpr*>(e);
            expr(t->subject.get(), s, ctx);
            args(t->args, s, ctx);
            if (!t->fn) {
                if (ctx.soft) t->missing_message = "No test named '" + t->name + "' found.";
                else fail("No test named '" + t->name + "'.", t->pos);
            }
            return;
        }
        case ExprKind::Cond: {
            auto* c = static_cast<CondExpr*>(e);
            Context soft = ctx;
            soft.soft = true;
            expr(c->then.get(), s, soft);
            expr(c->test.get(), s, soft);
            expr(c->otherwise.get(), s, soft);
            return;
        }
        case ExprKind::And:
        case ExprKind::Or: {
            auto* l = static_cast<LogicExpr*>(e);
            expr(l->left.get(), s, ctx);
            expr(l->right.get(), s, ctx);
            return;
        }
        case ExprKind::Not: expr(static_cast<NotExpr*>(e)->operand.get(), s, ctx); return;
        case ExprKind::Unary: expr(static_cast<UnaryExpr*>(e)->operand.get(), s, ctx); return;
        case ExprKind::Binary: {
            auto* b = static_cast<BinaryExpr*>(e);
            expr(b->left.get(), s, ctx);
            expr(b->right.get(), s, ctx);
            return;
        }
        case ExprKind::Concat:
            for (auto& x : static_cast<ConcatExpr*>(e)->parts) expr(x.get(), s, ctx);
            return;
        case ExprKind::Compare: {
            auto* c = static_cast<CompareExpr*>(e);
            expr(c->first.get(), s, ctx);
            for (auto& [k, x] : c->rest) expr(x.get(), s, ctx);
            return;
        }
        }
    }

    void args(CallArgExprs& a, Symbols& s, Context ctx) {
        for (auto& x : a.positional) expr(x.get(), s, ctx);
        for (auto& kv : a.keywords) expr(kv.second.get(), s, ctx);
        expr(a.star.get(), s, ctx);
        expr(a.star_star.get(), s, ctx);
    }

    void target(Target& t, Symbols& s) {
        switch (t.kind) {
        case Target::Kind::Name:
        case Target::Kind::NsAttr:
            if (auto ref = s.find(t.name)) t.ref = *ref;
            return;
        case Target::Kind::Tuple:
            for (auto& item : t.items) target(item, s);
            return;
        }
    }

    // A scope nested in `parent` (nullptr: one that sees only the context, like a block).
    void nested(FrameLayout& layout, Symbols* parent, const std::function<void(Symbols&)>& analyse,
                const std::function<void(Symbols&)>& compile) {
        Symbols s;
        s.parent = parent;
        s.layout = &layout;
        analyse(s);
        s.finish();
        compile(s);
    }

    void macro(MacroDef& m, Symbols& outer) {
        const auto special = undeclared(m.body, {"caller", "kwargs", "varargs"});
        int caller_index = -1;
        for (size_t i = 0; i < m.params.size(); ++i)
            if (m.params[i] == "caller") caller_index = int(i);
        m.explicit_caller = caller_index >= 0;
        m.accesses_caller = special.count("caller") > 0;
        if (special.count("caller") && caller_index >= 0 &&
            int(m.params.size()) - caller_index > int(m.defaults.size()))
            fail("When defining macros or call blocks the special 'caller' argument must be omitted or be given a "
                 "default.", m.pos);
        nested(m.frame, &outer,
               [&](Symbols& s) {
                   for (const auto& p : m.params) s.declare_parameter(p);
                   for (const auto& d : m.defaults) sym_expr(d.get(), s);
                   sym_body(m.body, s);
                   auto declare = [&](const char* name, int& slot) {
                       bool is_param = false;
                       for (const auto& p : m.params) is_param = is_param || p == name;
                       if (special.count(name) && !is_param) {
                           s.declare_parameter(name);
                           slot = s.refs.at(name);
                       }
                   };
                   declare("caller", m.caller_slot);
                   declare("kwargs", m.kwargs_slot);
                   declare("varargs", m.varargs_slot);
                   for (const auto& p : m.params) m.param_slots.push_back(s.refs.at(p));
               },
               [&](Symbols& s) {
                   const Context fresh{};
                   for (auto& d : m.defaults) expr(d.get(), s, fresh);
                   frame_body(m.body, s, fresh);
               });
    }

    void stmt(Stmt& st, Symbols& s, Context ctx) {
        switch (st.kind) {
        case StmtKind::Data: return;
        case StmtKind::Print: expr(static_cast<PrintStmt&>(st).expr.get(), s, ctx); return;
        case StmtKind::Break:
        case StmtKind::Continue:
            if (!ctx.in_loop) fail(st.kind == StmtKind::Break ? "'break' outside loop" : "'continue' not properly in loop", st.pos);
            return;
        case StmtKind::If: {
            auto& n = static_cast<IfStmt&>(st);
            Context soft = ctx;
            soft.soft = true;
            expr(n.test.get(), s, soft);
            frame_body(n.body, s, soft);
            for (auto& [test, body] : n.elifs) {
                expr(test.get(), s, soft);
                frame_body(body, s, soft);
            }
            frame_body(n.else_body, s, soft);
            return;
        }
        case StmtKind::For: {
            auto& n = static_cast<ForStmt&>(st);
            const bool extended = n.recursive || undeclared(n.body, {"loop"}).count("loop");
            if (n.filter) {
                n.test_target = n.target;
                nested(n.test_frame, &s,
                       [&](Symbols& b) {
                           sym_target(n.test_target, b, true);
                           sym_expr(n.filter.get(), b);
                       },
                       [&](Symbols& b) {
                           target(n.test_target, b);
                           expr(n.filter.get(), b, Context{});
                       });
            }
            if (const Target* t = find_loop_store(st))
                fail("Can't assign to special loop variable in for-loop target", t->pos);
            expr(n.iter.get(), s, ctx);
            nested(n.body_frame, &s,
                   [&](Symbols& b) {
                       if (extended) b.declare_parameter("loop");
                       sym_target(n.target, b, true);
                       sym_body(n.body, b);
                       if (extended) n.loop_slot = b.refs.at("loop");
                   },
                   [&](Symbols& b) {
                       target(n.target, b);
                       frame_body(n.body, b, Context{false, true});
                   });
            if (!n.else_body.empty())
                nested(n.else_frame, &s, [&](Symbols& b) { sym_body(n.else_body, b); },
                       [&](Symbols& b) { frame_body(n.else_body, b, Context{false, ctx.in_loop}); });
            return;
        }
        case StmtKind::Set: {
            auto& n = static_cast<SetStmt&>(st);
            expr(n.value.get(), s, ctx);
            target(n.target, s);
            return;
        }
        case StmtKind::SetBlock: {
            auto& n = static_cast<SetBlockStmt&>(st);
            nested(n.frame, &s,
                   [&](Symbols& b) {
                       sym_body(n.body, b);
                       sym_expr(n.filter.get(), b);
                   },
                   [&](Symbols& b) {
                       frame_body(n.body, b, Context{false, ctx.in_loop});
                       expr(n.filter.get(), b, Context{});
                   });
            target(n.target, s);
            return;
        }
        case StmtKind::Macro: {
            auto& n = static_cast<MacroStmt&>(st);
            macro(*n.def, s);
            target(n.target, s);
            return;
        }
        case StmtKind::CallBlock: {
            auto& n = static_cast<CallBlockStmt&>(st);
            macro(*n.caller, s);
            expr(n.call.get(), s, ctx);
            return;
        }
        case StmtKind::FilterBlock: {
            auto& n = static_cast<FilterBlockStmt&>(st);
            nested(n.frame, &s,
                   [&](Symbols& b) {
                       sym_body(n.body, b);
                       sym_expr(n.filter.get(), b);
                   },
                   [&](Symbols& b) {
                       frame_body(n.body, b, Context{false, ctx.in_loop});
                       expr(n.filter.get(), b, Context{});
                   });
            return;
        }
        case StmtKind::With: {
            auto& n = static_cast<WithStmt&>(st);
            for (auto& v : n.values) expr(v.get(), s, ctx);
            nested(n.frame, &s,
                   [&](Symbols& b) {
                       for (const auto& t : n.targets) sym_target(t, b, true);
                       sym_body(n.body, b);
                   },
                   [&](Symbols& b) {
                       for (auto& t : n.targets) target(t, b);
                       frame_body(n.body, b, Context{false, ctx.in_loop});
                   });
            return;
        }
        case StmtKind::Block: {
            auto& n = static_cast<BlockStmt&>(st);
            nested(n.frame, n.scoped ? &s : nullptr, [&](Symbols& b) { sym_body(n.body, b); },
                   [&](Symbols& b) { frame_body(n.body, b, Context{}); });
            return;
        }
        case StmtKind::Scope: {
            auto& n = static_cast<ScopeStmt&>(st);
            nested(n.frame, &s, [&](Symbols& b) { sym_body(n.body, b); },
                   [&](Symbols& b) { frame_body(n.body, b, Context{}); });
            return;
        }
        }
    }
};

void check_blocks(const Body& body, std::set<std::string>& seen);

void check_blocks_in(const Stmt& st, std::set<std::string>& seen) {
    switch (st.kind) {
    case StmtKind::Block: {
        auto& n = static_cast<const BlockStmt&>(st);
        if (!seen.insert(n.name).second) fail("block '" + n.name + "' defined twice", n.pos);
        check_blocks(n.body, seen);
        return;
    }
    case StmtKind::If: {
        auto& n = static_cast<const IfStmt&>(st);
        check_blocks(n.body, seen);
        for (const auto& [t, b] : n.elifs) check_blocks(b, seen);
        check_blocks(n.else_body, seen);
        return;
    }
    case StmtKind::For: {
        auto& n = static_cast<const ForStmt&>(st);
        check_blocks(n.body, seen);
        check_blocks(n.else_body, seen);
        return;
    }
    case StmtKind::SetBlock: check_blocks(static_cast<const SetBlockStmt&>(st).body, seen); return;
    case StmtKind::Macro: check_blocks(static_cast<const MacroStmt&>(st).def->body, seen); return;
    case StmtKind::CallBlock: check_blocks(static_cast<const CallBlockStmt&>(st).caller->body, seen); return;
    case StmtKind::FilterBlock: check_blocks(static_cast<const FilterBlockStmt&>(st).body, seen); return;
    case StmtKind::With: check_blocks(static_cast<const WithStmt&>(st).body, seen); return;
    case StmtKind::Scope: check_blocks(static_cast<const ScopeStmt&>(st).body, seen); return;
    default: return;
    }
}

void check_blocks(const Body& body, std::set<std::string>& seen) {
    for (const auto& st : body) check_blocks_in(*st, seen);
}

}  // namespace

void analyze_scopes(TemplateAst& ast) {
    std::set<std::string> blocks;
    check_blocks(ast.body, blocks);
    ast.root.toplevel = true;
    Compiler c;
    c.nested(ast.root, nullptr, [&](Symbols& s) { sym_body(ast.body, s); },
             [&](Symbols& s) { c.frame_body(ast.body, s, Context{}); });
}

}  // namespace folio::jinja
