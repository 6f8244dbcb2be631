#include "engine/jinja/template_expr_parser.h"

#include <set>

#include "engine/jinja/template_builtins.h"

namespace folio::jinja {

namespace {

const char* kind_name(ExprKind k) {  // Jinja2's node class names, lowercased, for messages
    switch (k) {
    case ExprKind::Const: return "const";
    case ExprKind::Name: return "name";
    case ExprKind::Tuple: return "tuple";
    case ExprKind::List: return "list";
    case ExprKind::Dict: return "dict";
    case ExprKind::Getattr: return "getattr";
    case ExprKind::Getitem: return "getitem";
    case ExprKind::Slice: return "slice";
    case ExprKind::Call: return "call";
    case ExprKind::Filter: return "filter";
    case ExprKind::Test: return "test";
    case ExprKind::Cond: return "condexpr";
    case ExprKind::And: return "and";
    case ExprKind::Or: return "or";
    case ExprKind::Not: return "not";
    case ExprKind::Unary: return "neg";
    case ExprKind::Binary: return "binexpr";
    case ExprKind::Concat: return "concat";
    case ExprKind::Compare: return "compare";
    }
    return "expr";
}

}  // namespace

void ExprParser::check_assignable_name(const Token& t) {
    static const std::set<std::string> consts{"true", "false", "none", "True", "False", "None"};
    if (consts.count(t.value)) fail("can't assign to 'name'", t);
}

Target ExprParser::parse_assign_target(bool with_tuple, bool name_only, const Names* extra_end, bool with_namespace) {
    Target t;
    t.pos = here();
    if (with_namespace && look().type == TokenType::Operator && look().value == ".") {
        const Token name = expect_type(TokenType::Name);
        advance();  // the dot
        t.kind = Target::Kind::NsAttr;
        t.name = name.value;
        t.attr = expect_type(TokenType::Name).value;
        return t;
    }
    if (name_only) {
        const Token name = expect_type(TokenType::Name);
        check_assignable_name(name);
        t.kind = Target::Kind::Name;
        t.name = name.value;
        return t;
    }
    ExprPtr e = with_tuple ? parse_tuple(true, true, extra_end, false) : parse_primary();
    return to_target(*e);
}

Target ExprParser::to_target(const Expr& e) {
    Target t;
    t.pos = e.pos;
    if (e.kind == ExprKind::Name) {
        t.kind = Target::Kind::Name;
        t.name = static_cast<const NameExpr&>(e).name;
        return t;
    }
    if (e.kind == ExprKind::Tuple) {
        t.kind = Target::Kind::Tuple;
        for (const auto& item : static_cast<const SeqExpr&>(e).items) {
            if (item->kind != ExprKind::Name && item->kind != ExprKind::Tuple) fail_at("can't assign to 'tuple'", e.pos);
            t.items.push_back(to_target(*item));
        }
        return t;
    }
    fail_at(std::string("can't assign to '") + kind_name(e.kind) + "'", e.pos);
}

bool ExprParser::is_tuple_end(const Names* extra) const {
    if (cur_.type == TokenType::VarEnd || cur_.type == TokenType::BlockEnd || is_op(")")) return true;
    if (extra && cur_.type == TokenType::Name)
        for (const auto& n : *extra)
            if (cur_.value == n) return true;
    return false;
}

ExprPtr ExprParser::parse_tuple(bool simplified, bool with_condexpr, const Names* extra_end, bool explicit_parens) {
    const Pos pos = here();
    std::vector<ExprPtr> args;
    bool is_tuple = false;
    while (true) {
        if (!args.empty()) expect_op(",");
        if (is_tuple_end(extra_end)) break;
        args.push_back(simplified ? parse_primary() : parse_expression(with_condexpr));
        if (is_op(",")) is_tuple = true;
        else break;
    }
    if (!is_tuple) {
        if (!args.empty()) return std::move(args[0]);
        if (!explicit_parens) fail("Expected an expression, got '" + describe(cur_) + "'", cur_);
    }
    auto t = std::make_unique<SeqExpr>(ExprKind::Tuple, pos);
    for (auto& a : args) raise_height(*t, a->height);
    t->items = std::move(args);
    return t;
}

ExprPtr ExprParser::parse_expression(bool with_condexpr) {
    Nest nest(*this);
    return with_condexpr ? parse_condexpr() : parse_or();
}

ExprPtr ExprParser::parse_condexpr() {
    const Pos pos = here();
    ExprPtr expr1 = parse_or();
    while (skip_name("if")) {
        auto c = std::make_unique<CondExpr>(ExprKind::Cond, pos);
        c->test = parse_or();
        if (skip_name("else")) {
            Nest nest(*this);
            c->otherwise = parse_condexpr();
        }
        c->then = std::move(expr1);
        set_height(*c, {c->test.get(), c->then.get(), c->otherwise.get()});
        expr1 = std::move(c);
    }
    return expr1;
}

// `or` over `and` over `not`: a left-associative chain of one keyword.
ExprPtr ExprParser::parse_logic(const char* keyword, ExprKind kind, ExprPtr (ExprParser::*operand)()) {
    ExprPtr left = (this->*operand)();
    while (is_name(keyword)) {
        auto node = std::make_unique<LogicExpr>(kind, here());
        advance();
        node->left = std::move(left);
        node->right = (this->*operand)();
        set_height(*node, {node->left.get(), node->right.get()});
        left = std::move(node);
    }
    return left;
}

ExprPtr ExprParser::parse_or() { return parse_logic("or", ExprKind::Or, &ExprParser::parse_and); }

ExprPtr ExprParser::parse_and() { return parse_logic("and", ExprKind::And, &ExprParser::parse_not); }

ExprPtr ExprParser::parse_not() {
    if (is_name("not")) {
        auto node = std::make_unique<NotExpr>(ExprKind::Not, here());
        advance();
        Nest nest(*this);
        node->operand = parse_not();
        set_height(*node, {node->operand.get()});
        return node;
    }
    return parse_compare();
}

ExprPtr ExprParser::parse_compare() {
    const Pos pos = here();
    ExprPtr expr = parse_math1();
    std::vector<std::pair<CompareKind, ExprPtr>> ops;
    while (true) {
        CompareKind kind;
        if (cur_.type == TokenType::Operator && (cur_.value == "==" || cur_.value == "!=" || cur_.value == "<" ||
                                                 cur_.value == "<=" || cur_.value == ">" || cur_.value == ">=")) {
            const std::string& v = cur_.value;
            kind = v == "==" ? CompareKind::Eq : v == "!=" ? CompareKind::Ne : v == "<" ? CompareKind::Lt
                   : v == "<=" ? CompareKind::Le : v == ">" ? CompareKind::Gt : CompareKind::Ge;
            advance();
        } else if (skip_name("in")) {
            kind = CompareKind::In;
        } else if (is_name("not") && look().type == TokenType::Name && look().value == "in") {
            advance();
            advance();
            kind = CompareKind::NotIn;
        } else {
            break;
        }
        ops.emplace_back(kind, parse_math1());
    }
    if (ops.empty()) return expr;
    auto c = std::make_unique<CompareExpr>(ExprKind::Compare, pos);
    raise_height(*c, expr->height);
    for (auto& [k, e] : ops) raise_height(*c, e->height);
    c->first = std::move(expr);
    c->rest = std::move(ops);
    return c;
}

ExprPtr ExprParser::binary(BinaryOp op, Pos pos, ExprPtr left, ExprPtr right) {
    auto b = std::make_unique<BinaryExpr>(ExprKind::Binary, pos);
    b->op = op;
    b->left = std::move(left);
    b->right = std::move(right);
    set_height(*b, {b->left.get(), b->right.get()});
    return b;
}

ExprPtr ExprParser::parse_math1() {
    ExprPtr left = parse_concat();
    while (is_op("+") || is_op("-")) {
        const BinaryOp op = cur_.value == "+" ? BinaryOp::Add : BinaryOp::Sub;
        const Pos pos = here();
        advance();
        left = binary(op, pos, std::move(left), parse_concat());
    }
    return left;
}

ExprPtr ExprParser::parse_concat() {
    const Pos pos = here();
    ExprPtr first = parse_math2();
    if (!is_op("~")) return first;
    auto c = std::make_unique<ConcatExpr>(ExprKind::Concat, pos);
    raise_height(*c, first->height);
    c->parts.push_back(std::move(first));
    while (skip_op("~")) {
        c->parts.push_back(parse_math2());
        raise_height(*c, c->parts.back()->height);
    }
    return c;
}

ExprPtr ExprParser::parse_math2() {
    ExprPtr left = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
        const std::string& v = cur_.value;
        const BinaryOp op = v == "*" ? BinaryOp::Mul : v == "/" ? BinaryOp::Div : v == "//" ? BinaryOp::FloorDiv
                                                                                          : BinaryOp::Mod;
        const Pos pos = here();
        advance();
        left = binary(op, pos, std::move(left), parse_pow());
    }
    return left;
}

ExprPtr ExprParser::parse_pow() {
    ExprPtr left = parse_unary(true);
    while (is_op("**")) {
        const Pos pos = here();
        advance();
        left = binary(BinaryOp::Pow, pos, std::move(left), parse_unary(true));
    }
    return left;
}

ExprPtr ExprParser::parse_unary(bool with_filter) {
    ExprPtr node;
    if (is_op("-") || is_op("+")) {
        auto u = std::make_unique<UnaryExpr>(ExprKind::Unary, here());
        u->negate = cur_.value == "-";
        advance();
        Nest nest(*this);
        u->operand = parse_unary(false);
        set_height(*u, {u->operand.get()});
        node = std::move(u);
    } else {
        node = parse_primary();
    }
    node = parse_postfix(std::move(node));
    if (with_filter) node = parse_filter_expr(std::move(node));
    return node;
}

ExprPtr ExprParser::parse_primary() {
    const Pos pos = here();
    switch (cur_.type) {
    case TokenType::Name: {
        const std::string& v = cur_.value;
        ExprPtr node;
        if (v == "true" || v == "True" || v == "false" || v == "False")
            node = std::make_unique<ConstExpr>(pos, Value::boolean(v == "true" || v == "True"));
        else if (v == "none" || v == "None")
            node = std::make_unique<ConstExpr>(pos, Value::none());
        else
            node = std::make_unique<NameExpr>(pos, v);
        advance();
        return node;
    }
    case TokenType::String: {
        std::string s = cur_.value;
        advance();
        while (cur_.type == TokenType::String) {
            s += cur_.value;
            advance();
        }
        return std::make_unique<ConstExpr>(pos, Value::string(std::move(s)));
    }
    case TokenType::Integer: {
        auto node = std::make_unique<ConstExpr>(pos, Value::integer(cur_.integer));
        advance();
        return node;
    }
    case TokenType::Float: {
        auto node = std::make_unique<ConstExpr>(pos, Value::number(cur_.number));
        advance();
        return node;
    }
    case TokenType::Operator:
        if (cur_.value == "(") {
            advance();
            Nest nest(*this);
            ExprPtr node = parse_tuple(false, true, nullptr, true);
            expect_op(")");
            return node;
        }
        if (cur_.value == "[") return parse_list();
        if (cur_.value == "{") return parse_dict();
        break;
    default: break;
    }
    fail("unexpected '" + describe(cur_) + "'", cur_);
}

ExprPtr ExprParser::parse_list() {
    auto l = std::make_unique<SeqExpr>(ExprKind::List, here());
    expect_op("[");
    Nest nest(*this);
    while (!is_op("]")) {
        if (!l->items.empty()) expect_op(",");
        if (is_op("]")) break;
        l->items.push_back(parse_expression(true));
        raise_height(*l, l->items.back()->height);
    }
    expect_op("]");
    return l;
}

ExprPtr ExprParser::parse_dict() {
    auto d = std::make_unique<DictExpr>(ExprKind::Dict, here());
    expect_op("{");
    Nest nest(*this);
    while (!is_op("}")) {
        if (!d->items.empty()) expect_op(",");
        if (is_op("}")) break;
        ExprPtr key = parse_expression(true);
        expect_op(":");
        ExprPtr value = parse_expression(true);
        set_height(*d, {key.get(), value.get()});
        d->items.emplace_back(std::move(key), std::move(value));
    }
    expect_op("}");
    return d;
}

ExprPtr ExprParser::parse_postfix(ExprPtr node) {
    while (true) {
        if (is_op(".") || is_op("[")) node = parse_subscript(std::move(node));
        else if (is_op("(")) node = parse_call(std::move(node));
        else break;
    }
    return node;
}

ExprPtr ExprParser::parse_filter_expr(ExprPtr node) {
    while (true) {
        if (is_op("|")) node = parse_filter(std::move(node), false);
        else if (is_name("is")) node = parse_test(std::move(node));
        else if (is_op("(")) node = parse_call(std::move(node));
        else break;
    }
    return node;
}

ExprPtr ExprParser::parse_subscript(ExprPtr node) {
    const Token tok = cur_;
    const Pos pos = here();
    advance();
    if (tok.value == ".") {
        const Token attr = cur_;
        advance();
        if (attr.type == TokenType::Name) {
            auto g = std::make_unique<GetattrExpr>(ExprKind::Getattr, pos);
            g->object = std::move(node);
            g->attr = attr.value;
            set_height(*g, {g->object.get()});
            return g;
        }
        if (attr.type != TokenType::Integer) fail("expected name or number", attr);
        auto g = std::make_unique<GetitemExpr>(ExprKind::Getitem, pos);
        g->object = std::move(node);
        g->key = std::make_unique<ConstExpr>(pos_of(attr), Value::integer(attr.integer));
        set_height(*g, {g->object.get()});
        return g;
    }
    Nest nest(*this);
    std::vector<ExprPtr> args;
    while (!is_op("]")) {
        if (!args.empty()) expect_op(",");
        args.push_back(parse_subscribed());
    }
    expect_op("]");
    auto g = std::make_unique<GetitemExpr>(ExprKind::Getitem, pos);
    g->object = std::move(node);
    if (args.size() == 1) {
        g->key = std::move(args[0]);
    } else {
        auto t = std::make_unique<SeqExpr>(ExprKind::Tuple, pos);
        for (auto& a : args) raise_height(*t, a->height);
        t->items = std::move(args);
        g->key = std::move(t);
    }
    set_height(*g, {g->object.get(), g->key.get()});
    return g;
}

ExprPtr ExprParser::parse_subscribed() {
    const Pos pos = here();
    auto s = std::make_unique<SliceExpr>(ExprKind::Slice, pos);
    if (is_op(":")) {
        advance();
    } else {
        ExprPtr node = parse_expression(true);
        if (!is_op(":")) return node;
        advance();
        s->start = std::move(node);
    }
    if (!is_op(":") && !is_op("]") && !is_op(",")) s->stop = parse_expression(true);
    if (is_op(":")) {
        advance();
        if (!is_op("]") && !is_op(",")) s->step = parse_expression(true);
    }
    set_height(*s, {s->start.get(), s->stop.get(), s->step.get()});
    return s;
}

CallArgExprs ExprParser::parse_call_args() {
    const Token open = expect_op("(");
    Nest nest(*this);
    CallArgExprs a;
    bool require_comma = false;
    auto ensure = [&](bool ok) {
        if (!ok) fail("invalid syntax for function call expression", open);
    };
    while (!is_op(")")) {
        if (require_comma) {
            expect_op(",");
            if (is_op(")")) break;
        }
        if (is_op("*")) {
            ensure(!a.star && !a.star_star);
            advance();
            a.star = parse_expression(true);
        } else if (is_op("**")) {
            ensure(!a.star_star);
            advance();
            a.star_star = parse_expression(true);
        } else if (cur_.type == TokenType::Name && look().type == TokenType::Operator && look().value == "=") {
            ensure(!a.star_star);
            std::string key = cur_.value;
            advance();
            advance();
            a.keywords.emplace_back(std::move(key), parse_expression(true));
        } else {
            ensure(!a.star && !a.star_star && a.keywords.empty());
            a.positional.push_back(parse_expression(true));
        }
        require_comma = true;
    }
    expect_op(")");
    return a;
}

ExprPtr ExprParser::parse_call(ExprPtr node) {
    auto c = std::make_unique<CallExpr>(ExprKind::Call, here());
    c->args = parse_call_args();
    c->callee = std::move(node);
    set_height(*c, {c->callee.get()});
    args_height(*c, c->args);
    return c;
}

ExprPtr ExprParser::parse_filter(ExprPtr node, bool start_inline) {
    while (is_op("|") || start_inline) {
        if (!start_inline) advance();
        const Token name_tok = expect_type(TokenType::Name);
        std::string name = name_tok.value;
        while (is_op(".")) {
            advance();
            name += '.';
            name += expect_type(TokenType::Name).value;
        }
        auto f = std::make_unique<FilterExpr>(ExprKind::Filter, pos_of(name_tok));
        if (is_op("(")) f->args = parse_call_args();
        f->subject = std::move(node);
        f->name = std::move(name);
        f->fn = find_filter(f->name);
        if (f->subject) set_height(*f, {f->subject.get()});
        args_height(*f, f->args);
        node = std::move(f);
        start_inline = false;
    }
    return node;
}

ExprPtr ExprParser::parse_test(ExprPtr node) {
    auto t = std::make_unique<TestExpr>(ExprKind::Test, here());
    const Pos pos = t->pos;
    advance();  // "is"
    const bool negated = skip_name("not");
    const Token name_tok = expect_type(TokenType::Name);
    std::string name = name_tok.value;
    while (is_op(".")) {
        advance();
        name += '.';
        name += expect_type(TokenType::Name).value;
    }
    if (is_op("(")) {
        t->args = parse_call_args();
    } else if ((cur_.type == TokenType::Name || cur_.type == TokenType::String || cur_.type == TokenType::Integer ||
                cur_.type == TokenType::Float || is_op("[") || is_op("{")) &&
               !is_name("else") && !is_name("or") && !is_name("and")) {
        if (is_name("is")) fail("You cannot chain multiple tests with is", cur_);
        ExprPtr arg = parse_postfix(parse_primary());
        t->args.positional.push_back(std::move(arg));
    }
    t->subject = std::move(node);
    t->name = std::move(name);
    t->fn = find_test(t->name);
    set_height(*t, {t->subject.get()});
    args_height(*t, t->args);
    if (!negated) return t;
    auto n = std::make_unique<NotExpr>(ExprKind::Not, pos);
    set_height(*n, {t.get()});
    n->operand = std::move(t);
    return n;
}

}  // namespace folio::jinja
