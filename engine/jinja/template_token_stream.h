#pragma once
// The token stream the template parser reads: the lexer's tokens with one token of lookahead (as
// Jinja2's TokenStream), the "expected ..." errors, and the nesting and expression-height bounds that
// keep parsing, analysing and rendering within the stack.
#include <algorithm>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "engine/jinja/template_ast.h"
#include "engine/jinja/template_error.h"
#include "engine/jinja/template_lexer.h"
#include "engine/jinja/template_parser.h"

namespace folio::jinja {

using Names = std::vector<std::string>;

class TokenStream {
public:
    explicit TokenStream(std::string_view source) : lex_(source) { cur_ = lex_.next(); }

protected:
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
        explicit Nest(TokenStream& p) : p_(p) {
            if (++p_.depth_ > kMaxNesting)
                p_.fail("the template is nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)", p_.cur_);
        }
        ~Nest() { --p_.depth_; }
        TokenStream& p_;
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

    Lexer lex_;
    Token cur_;
    std::deque<Token> ahead_;
    int depth_ = 0;
};

}  // namespace folio::jinja
