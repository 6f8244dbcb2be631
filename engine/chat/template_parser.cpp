#include "engine/chat/template_parser.h"

#include <deque>
#include <initializer_list>
#include <set>

#include "engine/chat/python_text.h"
#include "engine/chat/template_builtins.h"
#include "engine/chat/template_error.h"
#include "engine/chat/template_fold.h"
#include "engine/chat/template_lexer.h"
#include "engine/chat/template_scopes.h"

namespace folio::jinja {

namespace {

using Names = std::vector<std::string>;

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

class Parser {
public:
    explicit Parser(std::string_view source) : lex_(source) { cur_ = lex_.next(); }

    std::unique_ptr<TemplateAst> run() {
        auto ast = std::make_unique<TemplateAst>();
        ast->body = subparse(nullptr);
        return ast;
    }

private:
    // ---- tokens ----
    void advance() {
        if (!ahead_.empty()) {
            cur_ = std::move(ahead_.front());
            ahead_.pop_front();
        } else if (cur_.type != TokenType::Eof) {
            cur_ = lex_.next();
        }
    }
    const Token& look() {
        if (ahead_.empty()) ahead_.push_back(cur_.type == TokenType::Eof ? cur_ : lex_.next());
        return ahead_.front();
    }
    bool is_name(std::string_view v) const { return cur_.type == TokenType::Name && cur_.value == v; }
    bool is_op(std::string_view v) const { return cur_.type == TokenType::Operator && cur_.value == v; }
    bool skip_name(std::string_view v) {
        if (!is_name(v)) return false;
        advance();
        return true;
    }
    bool skip_op(std::string_view v) {
        if (!is_op(v)) return false;
        advance();
        return true;
    }
    Pos pos_of(const Token& t) const {
        Pos p;
        lex_.position(t.offset, p.line, p.column);
        return p;
    }
    Pos here() const { return pos_of(cur_); }
    [[noreturn]] void fail(const std::string& message, const Token& at) const { lex_.fail(message, at.offset); }
    [[noreturn]] void fail_at(const std::string& message, Pos p) const { throw TemplateSyntaxError(message, p.line, p.column); }
    [[noreturn]] void fail_expected(const std::string& what) const {
        if (cur_.type == TokenType::Eof) fail("unexpected end of template, expected '" + what + "'.", cur_);
        fail("expected token '" + what + "', got '" + describe(cur_) + "'", cur_);
    }
    Token expect_op(std::string_view op) {
        if (!is_op(op)) fail_expected(std::string(op));
        Token t = cur_;
        advance();
        return t;
    }
    Token expect_type(TokenType type) {
        if (cur_.type != type) fail_expected(describe_type(type));
        Token t = cur_;
        advance();
        return t;
    }
    Token expect_name(std::string_view v) {
        if (!is_name(v)) fail_expected(std::string(v));
        Token t = cur_;
        advance();
        return t;
    }

    struct Nest {
        explicit Nest(Parser& p) : p_(p) {
            if (++p_.depth_ > kMaxNesting)
                p_.fail("the template is nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)", p_.cur_);
        }
        ~Nest() { --p_.depth_; }
        Parser& p_;
    };

    void set_height(Expr& e, std::initializer_list<const Expr*> kids) {
        int h = 0;
        for (const Expr* k : kids)
            if (k) h = std::max(h, k->height);
        raise_height(e, h);
    }
    void raise_height(Expr& e, int child_height) {
        e.height = std::max(e.height, child_height + 1);
        if (e.height > kMaxExprHeight)
            fail_at("expression nested too deeply (more than " + std::to_string(kMaxExprHeight) + " levels)", e.pos);
    }
    void args_height(Expr& e, const CallArgExprs& a) {
        for (const auto& x : a.positional) raise_height(e, x->height);
        for (const auto& kv : a.keywords) raise_height(e, kv.second->height);
        if (a.star) raise_height(e, a.star->height);
        if (a.star_star) raise_height(e, a.star_star->height);
    }

    // ---- statements ----
    Body subparse(const Names* end_tokens) {
        Body body;
        if (end_tokens) end_stack_.push_back(*end_tokens);
        while (cur_.type != TokenType::Eof) {
            if (cur_.type == TokenType::Data) {
                body.push_back(std::make_unique<DataStmt>(here(), cur_.value));
                advance();
            } else if (cur_.type == TokenType::VarBegin) {
                advance();
                auto p = std::make_unique<PrintStmt>(StmtKind::Print, here());
                p->expr = parse_tuple(false, true, nullptr, false);
                expect_type(TokenType::VarEnd);
                body.push_back(std::move(p));
            } else if (cur_.type == TokenType::BlockBegin) {
                advance();
                if (end_tokens && cur_.type == TokenType::Name) {
                    bool end = false;
                    for (const auto& t : *end_tokens) end = end || cur_.value == t;
                    if (end) {
                        end_stack_.pop_back();
                        return body;
                    }
                }
                parse_statement(body);
                expect_type(TokenType::BlockEnd);
            } else {
                fail("unexpected '" + describe(cur_) + "'", cur_);
            }
        }
        if (end_tokens) end_stack_.pop_back();
        return body;
    }

    Body parse_statements(const Names& end_tokens, bool drop_needle) {
        if (is_op(":")) advance();
        expect_type(TokenType::BlockEnd);
        Body body = subparse(&end_tokens);
        if (cur_.type == TokenType::Eof) {
            auto stack = end_stack_;
            stack.push_back(end_tokens);
            fail_unknown(nullptr, stack);
        }
        if (drop_needle) advance();
        return body;
    }

    [[noreturn]] void fail_unknown(const std::string* name, const std::vector<Names>& stack) {
        std::set<std::string> expected;
        for (const auto& names : stack) expected.insert(names.begin(), names.end());
        std::string looking;
        if (!stack.empty())
            for (const auto& t : stack.back()) looking += (looking.empty() ? "'" : " or '") + t + "'";
        std::string message = name ? "Encountered unknown tag '" + *name + "'." : "Unexpected end of template.";
        if (!looking.empty()) {
            if (name && expected.count(*name))
                message += " You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for " +
                           looking + ".";
            else
                message += " Jinja was looking for the following tags: " + looking + ".";
        }
        if (!tag_stack_.empty()) message += " The innermost block that needs to be closed is '" + tag_stack_.back() + "'.";
        fail(message, cur_);
    }

    void parse_statement(Body& out) {
        Nest nest(*this);
        if (cur_.type != TokenType::Name) fail("tag name expected", cur_);
        const std::string tag = cur_.value;
        tag_stack_.push_back(tag);
        if (tag == "for") out.push_back(parse_for());
        else if (tag == "if") out.push_back(parse_if());
        else if (tag == "set") out.push_back(parse_set());
        else if (tag == "macro") out.push_back(parse_macro());
        else if (tag == "call") out.push_back(parse_call_block());
        else if (tag == "filter") out.push_back(parse_filter_block());
        else if (tag == "with") out.push_back(parse_with());
        else if (tag == "block") out.push_back(parse_block());
        else if (tag == "print") parse_print(out);
        else if (tag == "break" || tag == "continue") {
            out.push_back(std::make_unique<Stmt>(tag == "break" ? StmtKind::Break : StmtKind::Continue, here()));
            advance();
        } else if (tag == "generation") out.push_back(parse_generation());
        else if (tag == "extends" || tag == "include" || tag == "import" || tag == "from" || tag == "autoescape")
            fail("the '" + tag + "' tag is not supported: a chat template is rendered on its own, without other "
                 "templates or HTML escaping", cur_);
        else {
            tag_stack_.pop_back();
            fail_unknown(&tag, end_stack_);
        }
        tag_stack_.pop_back();
    }

    StmtPtr parse_for() {
        auto s = std::make_unique<ForStmt>(StmtKind::For, here());
        advance();
        const Names in_rule{"in"};
        s->target = parse_assign_target(true, false, &in_rule, false);
        expect_name("in");
        const Names rec_rule{"recursive"};
        s->iter = parse_tuple(false, false, &rec_rule, false);
        if (skip_name("if")) s->filter = parse_expression(true);
        s->recursive = skip_name("recursive");
        s->body = parse_statements({"endfor", "else"}, false);
        const bool has_else = cur_.value == "else";
        advance();
        if (has_else) s->else_body = parse_statements({"endfor"}, true);
        return s;
    }

    StmtPtr parse_if() {
        auto s = std::make_unique<IfStmt>(StmtKind::If, here());
        advance();
        s->test = parse_tuple(false, false, nullptr, false);
        s->body = parse_statements({"elif", "else", "endif"}, false);
        while (true) {
            const std::string which = cur_.value;
            advance();
            if (which == "elif") {
                ExprPtr test = parse_tuple(false, false, nullptr, false);
                Body body = parse_statements({"elif", "else", "endif"}, false);
                s->elifs.emplace_back(std::move(test), std::move(body));
                continue;
            }
            if (which == "else") s->else_body = parse_statements({"endif"}, true);
            break;
        }
        return s;
    }

    StmtPtr parse_set() {
        const Pos pos = here();
        advance();
        Target target = parse_assign_target(true, false, nullptr, true);
        if (skip_op("=")) {
            auto s = std::make_unique<SetStmt>(StmtKind::Set, pos);
            s->target = std::move(target);
            s->value = parse_tuple(false, true, nullptr, false);
            return s;
        }
        auto s = std::make_unique<SetBlockStmt>(StmtKind::SetBlock, pos);
        s->target = std::move(target);
        s->filter = parse_filter(nullptr, false);
        s->body = parse_statements({"endset"}, true);
        return s;
    }

    void parse_signature(MacroDef& def) {
        expect_op("(");
        while (!is_op(")")) {
            if (!def.params.empty()) expect_op(",");
            const Token name = expect_type(TokenType::Name);
            check_assignable_name(name);
            if (skip_op("=")) def.defaults.push_back(parse_expression(true));
            else if (!def.defaults.empty()) fail("non-default argument follows default argument", name);
            def.params.push_back(name.value);
        }
        expect_op(")");
    }

    void check_assignable_name(const Token& t) {
        static const std::set<std::string> consts{"true", "false", "none", "True", "False", "None"};
        if (consts.count(t.value)) fail("can't assign to 'name'", t);
    }

    StmtPtr parse_macro() {
        auto s = std::make_unique<MacroStmt>(StmtKind::Macro, here());
        advance();
        auto def = std::make_unique<MacroDef>();
        def->pos = s->pos;
        const Token name = expect_type(TokenType::Name);
        check_assignable_name(name);
        def->name = name.value;
        s->target.kind = Target::Kind::Name;
        s->target.name = name.value;
        s->target.pos = pos_of(name);
        parse_signature(*def);
        def->body = parse_statements({"endmacro"}, true);
        s->def = std::move(def);
        return s;
    }

    StmtPtr parse_call_block() {
        auto s = std::make_unique<CallBlockStmt>(StmtKind::CallBlock, here());
        advance();
        auto def = std::make_unique<MacroDef>();
        def->name = "caller";
        def->pos = s->pos;
        if (is_op("(")) parse_signature(*def);
        s->call = parse_expression(true);
        if (s->call->kind != ExprKind::Call) fail_at("expected call", s->pos);
        def->body = parse_statements({"endcall"}, true);
        s->caller = std::move(def);
        return s;
    }

    StmtPtr parse_filter_block() {
        auto s = std::make_unique<FilterBlockStmt>(StmtKind::FilterBlock, here());
        advance();
        s->filter = parse_filter(nullptr, true);
        s->body = parse_statements({"endfilter"}, true);
        return s;
    }

    StmtPtr parse_with() {
        auto s = std::make_unique<WithStmt>(StmtKind::With, here());
        advance();
        while (cur_.type != TokenType::BlockEnd) {
            if (!s->targets.empty()) expect_op(",");
            s->targets.push_back(parse_assign_target(true, false, nullptr, false));
            expect_op("=");
            s->values.push_back(parse_expression(true));
        }
        s->body = parse_statements({"endwith"}, true);
        return s;
    }

    StmtPtr parse_block() {
        auto s = std::make_unique<BlockStmt>(StmtKind::Block, here());
        advance();
        s->name = expect_type(TokenType::Name).value;
        s->scoped = skip_name("scoped");
        const bool required = skip_name("required");
        if (is_op("-"))
            fail("Block names in Jinja have to be valid Python identifiers and may not contain hyphens, use an "
                 "underscore instead.", cur_);
        s->body = parse_statements({"endblock"}, true);
        if (required) {
            for (const auto& st : s->body) {
                const bool blank = st->kind == StmtKind::Data &&
                                   py_is_class(static_cast<const DataStmt&>(*st).text, py_isspace);
                if (!blank) fail_at("Required blocks can only contain comments or whitespace", s->pos);
            }
        }
        skip_name(s->name);
        return s;
    }

    void parse_print(Body& out) {
        const Pos pos = here();
        advance();
        bool first = true;
        while (cur_.type != TokenType::BlockEnd) {
            if (!first) expect_op(",");
            first = false;
            auto p = std::make_unique<PrintStmt>(StmtKind::Print, pos);
            p->expr = parse_expression(true);
            out.push_back(std::move(p));
        }
    }

    StmtPtr parse_generation() {
        auto s = std::make_unique<ScopeStmt>(StmtKind::Scope, here());
        advance();
        s->body = parse_statements({"endgeneration"}, true);
        return s;
    }

    // ---- assignment targets ----
    Target parse_assign_target(bool with_tuple, bool name_only, const Names* extra_end, bool with_namespace) {
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

    Target to_target(const Expr& e) {
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

    // ---- expressions ----
    bool is_tuple_end(const Names* extra) const {
        if (cur_.type == TokenType::VarEnd || cur_.type == TokenType::BlockEnd || is_op(")")) return true;
        if (extra && cur_.type == TokenType::Name)
            for (const auto& n : *extra)
                if (cur_.value == n) return true;
        return false;
    }

    ExprPtr parse_tuple(bool simplified, bool with_condexpr, const Names* extra_end, bool explicit_parens) {
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

    ExprPtr parse_expression(bool with_condexpr) {
        Nest nest(*this);
        return with_condexpr ? parse_condexpr() : parse_or();
    }

    ExprPtr parse_condexpr() {
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

    ExprPtr parse_or() {
        ExprPtr left = parse_and();
        while (is_name("or")) {
            auto node = std::make_unique<LogicExpr>(ExprKind::Or, here());
            advance();
            node->left = std::move(left);
            node->right = parse_and();
            set_height(*node, {node->left.get(), node->right.get()});
            left = std::move(node);
        }
        return left;
    }

    ExprPtr parse_and() {
        ExprPtr left = parse_not();
        while (is_name("and")) {
            auto node = std::make_unique<LogicExpr>(ExprKind::And, here());
            advance();
            node->left = std::move(left);
            node->right = parse_not();
            set_height(*node, {node->left.get(), node->right.get()});
            left = std::move(node);
        }
        return left;
    }

    ExprPtr parse_not() {
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

    ExprPtr parse_compare() {
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

    ExprPtr binary(BinaryOp op, Pos pos, ExprPtr left, ExprPtr right) {
        auto b = std::make_unique<BinaryExpr>(ExprKind::Binary, pos);
        b->op = op;
        b->left = std::move(left);
        b->right = std::move(right);
        set_height(*b, {b->left.get(), b->right.get()});
        return b;
    }

    ExprPtr parse_math1() {
        ExprPtr left = parse_concat();
        while (is_op("+") || is_op("-")) {
            const BinaryOp op = cur_.value == "+" ? BinaryOp::Add : BinaryOp::Sub;
            const Pos pos = here();
            advance();
            left = binary(op, pos, std::move(left), parse_concat());
        }
        return left;
    }

    ExprPtr parse_concat() {
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

    ExprPtr parse_math2() {
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

    ExprPtr parse_pow() {
        ExprPtr left = parse_unary(true);
        while (is_op("**")) {
            const Pos pos = here();
            advance();
            left = binary(BinaryOp::Pow, pos, std::move(left), parse_unary(true));
        }
        return left;
    }

    ExprPtr parse_unary(bool with_filter) {
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

    ExprPtr parse_primary() {
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

    ExprPtr parse_list() {
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

    ExprPtr parse_dict() {
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

    ExprPtr parse_postfix(ExprPtr node) {
        while (true) {
            if (is_op(".") || is_op("[")) node = parse_subscript(std::move(node));
            else if (is_op("(")) node = parse_call(std::move(node));
            else break;
        }
        return node;
    }

    ExprPtr parse_filter_expr(ExprPtr node) {
        while (true) {
            if (is_op("|")) node = parse_filter(std::move(node), false);
            else if (is_name("is")) node = parse_test(std::move(node));
            else if (is_op("(")) node = parse_call(std::move(node));
            else break;
        }
        return node;
    }

    ExprPtr parse_subscript(ExprPtr node) {
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

    ExprPtr parse_subscribed() {
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

    CallArgExprs parse_call_args() {
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

    ExprPtr parse_call(ExprPtr node) {
        auto c = std::make_unique<CallExpr>(ExprKind::Call, here());
        c->args = parse_call_args();
        c->callee = std::move(node);
        set_height(*c, {c->callee.get()});
        args_height(*c, c->args);
        return c;
    }

    ExprPtr parse_filter(ExprPtr node, bool start_inline) {
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

    ExprPtr parse_test(ExprPtr node) {
        auto t = std::make_unique<TestExpr>(ExprKind::Test, here());
        const Pos pos = t->pos;
        advance();  // "is"
        const bool negated = skip_name("not");
        const Token name_tok = expect_type(TokenType::Name);
        std::string name = name_tok.value;
        while (is_op(".")) {
            advance();
            name += "." + expect_type(TokenType::Name).value;
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

    Lexer lex_;
    Token cur_;
    std::deque<Token> ahead_;
    int depth_ = 0;
    std::vector<std::string> tag_stack_;
    std::vector<Names> end_stack_;
};

}  // namespace

std::unique_ptr<TemplateAst> parse_template(std::string_view source) {
    Parser parser(source);
    std::unique_ptr<TemplateAst> ast = parser.run();
    analyze_scopes(*ast);  // Jinja's compile step: scopes, and the errors it reports after parsing
    fold_constants(*ast);
    return ast;
}

}  // namespace folio::jinja
