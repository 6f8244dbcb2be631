#include "engine/jinja/template_parser.h"

#include <set>

#include "engine/jinja/python_text.h"
#include "engine/jinja/template_expr_parser.h"
#include "engine/jinja/template_error.h"
#include "engine/jinja/template_fold.h"
#include "engine/jinja/template_scopes.h"

namespace folio::jinja {

namespace {

// Jinja2's statement parser (subparse, parse_statement and one function per tag).
class Parser : public ExprParser {
public:
    using ExprParser::ExprParser;

    std::unique_ptr<TemplateAst> run() {
        auto ast = std::make_unique<TemplateAst>();
        ast->body = subparse(nullptr);
        return ast;
    }

private:
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
