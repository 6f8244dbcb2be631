#include "engine/jinja/template_scopes.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

#include "engine/jinja/template_ast_walk.h"
#include "engine/jinja/template_builtins.h"
#include "engine/jinja/template_error.h"

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

void sym_expr(const Expr* e, Symbols& s) {
    for_each_loaded_name(e, [&](const std::string& name) { s.load(name); });
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
            for (const auto& elif : n.elifs) {  // each elif is an If of its own in Jinja's tree
                const Body& body = elif.second;
                sym_expr(elif.first.get(), b);
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

    // The body of a block `set` or a `filter` block: its own scope, then the filters applied to what
    // it rendered.
    void filtered_body(const Body& body, Expr* filter, FrameLayout& frame, Symbols& s, Context ctx) {
        nested(frame, &s,
               [&](Symbols& b) {
                   sym_body(body, b);
                   sym_expr(filter, b);
               },
               [&](Symbols& b) {
                   frame_body(body, b, Context{false, ctx.in_loop});
                   expr(filter, b, Context{});
               });
    }

    void macro(MacroDef& m, Symbols& outer) {
        const auto special = undeclared_names(m.body, {"caller", "kwargs", "varargs"});
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
            const bool extended = n.recursive || undeclared_names(n.body, {"loop"}).count("loop");
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
            if (const Target* t = find_loop_assignment(st))
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
            filtered_body(n.body, n.filter.get(), n.frame, s, ctx);
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
            filtered_body(n.body, n.filter.get(), n.frame, s, ctx);
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

}  // namespace

void analyze_scopes(TemplateAst& ast) {
    check_unique_block_names(ast.body);
    ast.root.toplevel = true;
    Compiler c;
    c.nested(ast.root, nullptr, [&](Symbols& s) { sym_body(ast.body, s); },
             [&](Symbols& s) { c.frame_body(ast.body, s, Context{}); });
}

}  // namespace folio::jinja
