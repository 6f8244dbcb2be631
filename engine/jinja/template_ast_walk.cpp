#include "engine/jinja/template_ast_walk.h"

#include "engine/jinja/template_error.h"

namespace folio::jinja {

namespace {

using NameFn = std::function<void(const std::string&)>;

[[noreturn]] void fail(const std::string& message, Pos pos) { throw TemplateSyntaxError(message, pos.line, pos.column); }

void names_in(const Expr* e, const NameFn& fn);

void names_in_args(const CallArgExprs& a, const NameFn& fn) {
    for (const auto& x : a.positional) names_in(x.get(), fn);
    for (const auto& kv : a.keywords) names_in(kv.second.get(), fn);
    names_in(a.star.get(), fn);
    names_in(a.star_star.get(), fn);
}

void names_in(const Expr* e, const NameFn& fn) {
    if (!e) return;
    switch (e->kind) {
    case ExprKind::Const: return;
    case ExprKind::Name: fn(static_cast<const NameExpr*>(e)->name); return;
    case ExprKind::Tuple:
    case ExprKind::List:
        for (const auto& x : static_cast<const SeqExpr*>(e)->items) names_in(x.get(), fn);
        return;
    case ExprKind::Dict:
        for (const auto& [k, v] : static_cast<const DictExpr*>(e)->items) {
            names_in(k.get(), fn);
            names_in(v.get(), fn);
        }
        return;
    case ExprKind::Getattr: names_in(static_cast<const GetattrExpr*>(e)->object.get(), fn); return;
    case ExprKind::Getitem: {
        auto* g = static_cast<const GetitemExpr*>(e);
        names_in(g->object.get(), fn);
        names_in(g->key.get(), fn);
        return;
    }
    case ExprKind::Slice: {
        auto* sl = static_cast<const SliceExpr*>(e);
        names_in(sl->start.get(), fn);
        names_in(sl->stop.get(), fn);
        names_in(sl->step.get(), fn);
        return;
    }
    case ExprKind::Call: {
        auto* c = static_cast<const CallExpr*>(e);
        names_in(c->callee.get(), fn);
        names_in_args(c->args, fn);
        return;
    }
    case ExprKind::Filter: {
        auto* f = static_cast<const FilterExpr*>(e);
        names_in(f->subject.get(), fn);
        names_in_args(f->args, fn);
        return;
    }
    case ExprKind::Test: {
        auto* t = static_cast<const TestExpr*>(e);
        names_in(t->subject.get(), fn);
        names_in_args(t->args, fn);
        return;
    }
    case ExprKind::Cond: {
        auto* c = static_cast<const CondExpr*>(e);
        names_in(c->test.get(), fn);
        names_in(c->then.get(), fn);
        names_in(c->otherwise.get(), fn);
        return;
    }
    case ExprKind::And:
    case ExprKind::Or: {
        auto* l = static_cast<const LogicExpr*>(e);
        names_in(l->left.get(), fn);
        names_in(l->right.get(), fn);
        return;
    }
    case ExprKind::Not: names_in(static_cast<const NotExpr*>(e)->operand.get(), fn); return;
    case ExprKind::Unary: names_in(static_cast<const UnaryExpr*>(e)->operand.get(), fn); return;
    case ExprKind::Binary: {
        auto* b = static_cast<const BinaryExpr*>(e);
        names_in(b->left.get(), fn);
        names_in(b->right.get(), fn);
        return;
    }
    case ExprKind::Concat:
        for (const auto& x : static_cast<const ConcatExpr*>(e)->parts) names_in(x.get(), fn);
        return;
    case ExprKind::Compare: {
        auto* c = static_cast<const CompareExpr*>(e);
        names_in(c->first.get(), fn);
        for (const auto& [k, x] : c->rest) names_in(x.get(), fn);
        return;
    }
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
        for_each_loaded_name(e, [&](const std::string& n) { name(n, true); });
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



// Does the subtree assign to a variable named `loop`?
bool stores_loop(const Target& t) {
    if (t.kind == Target::Kind::Name) return t.name == "loop";
    if (t.kind == Target::Kind::Tuple)
        for (const auto& item : t.items)
            if (stores_loop(item)) return true;
    return false;
}

const Target* find_loop_store(const Body& b);

const Target* find_loop_store_in(const Stmt& st) {
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
        if (auto* t = find_loop_store_in(*st)) return t;
    return nullptr;
}

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

void for_each_loaded_name(const Expr* e, const std::function<void(const std::string&)>& fn) { names_in(e, fn); }

std::set<std::string> undeclared_names(const Body& body, std::set<std::string> names) {
    Undeclared u{std::move(names), {}};
    u.body(body);
    return u.found;
}

const Target* find_loop_assignment(const Stmt& st) { return find_loop_store_in(st); }

void check_unique_block_names(const Body& body) {
    std::set<std::string> seen;
    check_blocks(body, seen);
}

}  // namespace folio::jinja
