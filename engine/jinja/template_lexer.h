#pragma once
// Splits a template into tokens exactly as Jinja2's lexer does under transformers' settings
// (trim_blocks, lstrip_blocks): text, {{ }}, {% %} with their whitespace control (- and +), comments
// and raw blocks dropped or passed through, and the tokens inside tags (names, numbers, strings with
// Python escapes, operators). Tokens are produced on demand, as Jinja does, so the first error a
// template shows is the one Jinja would report.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace folio::jinja {

enum class TokenType {
    Data,        // template text
    VarBegin,    // {{
    VarEnd,      // }}
    BlockBegin,  // {%
    BlockEnd,    // %}
    Name,
    String,
    Integer,
    Float,
    Operator,    // value holds the operator text ("+", "//", "==", ...)
    Eof,
};

struct Token {
    TokenType type = TokenType::Eof;
    std::string value;  // Data/Name/Operator text, decoded String contents
    int64_t integer = 0;
    double number = 0.0;
    size_t offset = 0;  // where the token starts in the (newline-normalized) source
};

// Jinja's description of a token in messages: "end of statement block", a name's own text, ...
std::string describe(const Token& t);
std::string describe_type(TokenType type, std::string_view op = {});

class Lexer {
public:
    // `source` as the template author wrote it; newlines are normalized (\r\n and \r become \n) and
    // one trailing newline is dropped, as Jinja2 does with keep_trailing_newline=False.
    explicit Lexer(std::string_view source);

    const std::string& source() const { return source_; }
    Token next();  // throws TemplateSyntaxError

    // 1-based line and column (in code points) of a source offset.
    void position(size_t offset, int& line, int& column) const;
    [[noreturn]] void fail(const std::string& message, size_t offset) const;

private:
    enum class State { Root, Var, Block, Comment, Raw };

    void lex_root();  // text before the next tag and the tag's begin token, into pending_
    Token lex_tag();
    void skip_comment();
    void lex_raw();
    bool match_end(size_t& end);  // end of the current tag at pos_, with its trailing whitespace rules
    std::string lstrip_text(std::string text, char sign, bool variable) const;
    Token make(TokenType type, size_t offset, std::string value = {});

    std::string source_;
    std::vector<size_t> line_starts_;
    size_t pos_ = 0;
    State state_ = State::Root;
    bool line_starting_ = true;
    std::vector<char> balance_;
    std::vector<Token> pending_;  // tokens already lexed, returned in order
    size_t pending_next_ = 0;
};

}  // namespace folio::jinja
