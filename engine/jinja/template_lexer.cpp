#include "engine/jinja/template_lexer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "engine/jinja/python_text.h"
#include "engine/jinja/template_error.h"

namespace folio::jinja {

namespace {

// The offset of the first code point at or after `j` that is not Python whitespace.
size_t skip_space(std::string_view s, size_t j) {
    while (j < s.size()) {
        size_t k = j;
        if (!py_isspace(next_code_point(s, k))) break;
        j = k;
    }
    return j;
}

}  // namespace

std::string describe_type(TokenType type, std::string_view op) {
    switch (type) {
    case TokenType::Data: return "template data / text";
    case TokenType::VarBegin: return "begin of print statement";
    case TokenType::VarEnd: return "end of print statement";
    case TokenType::BlockBegin: return "begin of statement block";
    case TokenType::BlockEnd: return "end of statement block";
    case TokenType::Name: return "name";
    case TokenType::String: return "string";
    case TokenType::Integer: return "integer";
    case TokenType::Float: return "float";
    case TokenType::Operator: return std::string(op);
    case TokenType::Eof: return "end of template";
    }
    return "token";
}

std::string describe(const Token& t) {
    if (t.type == TokenType::Name || t.type == TokenType::Operator) return t.value;
    return describe_type(t.type);
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

// Python's source normalization: \r\n, \r and \n all become \n; one trailing newline is dropped.
std::string normalize_newlines(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\r') {
            out += '\n';
            if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
        } else {
            out += s[i];
        }
    }
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

std::string rstrip_python(const std::string& text) { return py_strip(text, std::nullopt, false, true); }

bool all_space(std::string_view s) {
    if (s.empty()) return false;
    for (size_t i = 0; i < s.size();)
        if (!py_isspace(next_code_point(s, i))) return false;
    return true;
}

// `\d+(_\d+)*` from i; returns the end, or npos when there is no digit at i.
size_t digit_group(const std::string& s, size_t i, bool (*digit)(char) = is_digit) {
    if (i >= s.size() || !digit(s[i])) return std::string::npos;
    while (i < s.size() && digit(s[i])) ++i;
    while (i + 1 < s.size() && s[i] == '_' && digit(s[i + 1])) {
        ++i;
        while (i < s.size() && digit(s[i])) ++i;
    }
    return i;
}

// The string literal escapes of Jinja2: the text is first made ASCII with Python's "backslashreplace"
// and then decoded with "unicode-escape" (so "\é" in a template reads as the four characters "\xe9").
bool decode_string_literal(std::string_view raw, std::string& out, std::string& error) {
    static const char* hex = "0123456789abcdef";
    std::string ascii;
    for (size_t i = 0; i < raw.size();) {
        const char32_t c = next_code_point(raw, i);
        if (c < 0x80) {
            ascii += char(c);
        } else if (c < 0x100) {
            ascii += "\\x";
            ascii += hex[c >> 4];
            ascii += hex[c & 15];
        } else if (c < 0x10000) {
            ascii += "\\u";
            for (int k = 12; k >= 0; k -= 4) ascii += hex[(c >> k) & 15];
        } else {
            ascii += "\\U";
            for (int k = 28; k >= 0; k -= 4) ascii += hex[(c >> k) & 15];
        }
    }
    auto hexval = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    const size_t n = ascii.size();
    for (size_t i = 0; i < n;) {
        const char c = ascii[i++];
        if (c != '\\') {
            out += c;
            continue;
        }
        if (i >= n) {
            error = "\\ at end of string";
            return false;
        }
        const char e = ascii[i++];
        switch (e) {
        case '\n': break;
        case '\\': case '\'': case '"': out += e; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'v': out += '\v'; break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
            char32_t v = char32_t(e - '0');
            for (int k = 0; k < 2 && i < n && ascii[i] >= '0' && ascii[i] <= '7'; ++k) v = v * 8 + char32_t(ascii[i++] - '0');
            append_utf8(out, v);
            break;
        }
        case 'x': case 'u': case 'U': {
            const int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            char32_t v = 0;
            for (int k = 0; k < digits; ++k) {
                if (i >= n || hexval(ascii[i]) < 0) {
                    error = e == 'x' ? "truncated \\xXX escape" : e == 'u' ? "truncated \\uXXXX escape"
                                                                          : "truncated \\UXXXXXXXX escape";
                    return false;
                }
                v = v * 16 + char32_t(hexval(ascii[i++]));
            }
            if (v > 0x10FFFF) {
                error = "illegal Unicode character";
                return false;
            }
            append_utf8(out, v);
            break;
        }
        case 'N':
            error = "\\N{...} escapes (Unicode character names) are not supported";
            return false;
        default:
            out += '\\';
            out += e;
            break;
        }
    }
    return true;
}

}  // namespace

Lexer::Lexer(std::string_view source) : source_(normalize_newlines(source)) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < source_.size(); ++i)
        if (source_[i] == '\n') line_starts_.push_back(i + 1);
    const size_t bad = find_invalid_utf8(source_);
    if (bad != std::string::npos) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "the template is not valid UTF-8 (byte 0x%02x)",
                      unsigned(static_cast<unsigned char>(source_[bad])));
        fail(buf, bad);
    }
}

void Lexer::position(size_t offset, int& line, int& column) const {
    offset = std::min(offset, source_.size());
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const size_t idx = size_t(it - line_starts_.begin()) - 1;
    line = int(idx + 1);
    column = int(code_point_count(std::string_view(source_).substr(line_starts_[idx], offset - line_starts_[idx]))) + 1;
}

void Lexer::fail(const std::string& message, size_t offset) const {
    int line, column;
    position(offset, line, column);
    throw TemplateSyntaxError(message, line, column);
}

Token Lexer::make(TokenType type, size_t offset, std::string value) {
    Token t;
    t.type = type;
    t.offset = offset;
    t.value = std::move(value);
    return t;
}

std::string Lexer::lstrip_text(std::string text, char sign, bool variable) const {
    if (sign == '-') return rstrip_python(text);
    if (sign != '+' && !variable) {  // lstrip_blocks: whitespace before a block or comment tag at line start
        const size_t nl = text.rfind('\n');
        const size_t l_pos = nl == std::string::npos ? 0 : nl + 1;
        if ((l_pos > 0 || line_starting_) && all_space(std::string_view(text).substr(l_pos))) text.resize(l_pos);
    }
    return text;
}

Token Lexer::next() {
    while (pending_next_ >= pending_.size()) {
        pending_.clear();
        pending_next_ = 0;
        switch (state_) {
        case State::Root:
            if (pos_ >= source_.size()) return make(TokenType::Eof, source_.size());
            lex_root();
            break;
        case State::Var:
        case State::Block: return lex_tag();
        case State::Comment: skip_comment(); break;
        case State::Raw: lex_raw(); break;
        }
    }
    return pending_[pending_next_++];
}

void Lexer::lex_root() {
    const size_t n = source_.size();
    size_t p = pos_;
    while (true) {
        p = source_.find('{', p);
        if (p == std::string::npos || p + 1 >= n) {
            p = std::string::npos;
            break;
        }
        const char k = source_[p + 1];
        if (k == '{' || k == '%' || k == '#') break;
        ++p;
    }
    if (p == std::string::npos) {
        pending_.push_back(make(TokenType::Data, pos_, source_.substr(pos_)));
        line_starting_ = source_.back() == '\n';
        pos_ = n;
        return;
    }
    const char kind = source_[p + 1];
    char sign = 0;
    if (p + 2 < n && (source_[p + 2] == '-' || source_[p + 2] == '+')) sign = source_[p + 2];
    const size_t tag_end = p + 2 + (sign ? 1 : 0);

    // {% raw %}: everything up to {% endraw %} is text.
    size_t raw_end = std::string::npos;
    if (kind == '%') {
        size_t j = tag_end;
        auto skip_ws = [&]() { j = skip_space(source_, j); };
        skip_ws();
        if (source_.compare(j, 3, "raw") == 0) {
            j += 3;
            skip_ws();
            if (source_.compare(j, 3, "-%}") == 0) {
                j += 3;
                skip_ws();
                raw_end = j;
            } else if (source_.compare(j, 2, "%}") == 0) {
                raw_end = j + 2;
            }
        }
    }

    std::string text = lstrip_text(source_.substr(pos_, p - pos_), sign, kind == '{');
    const size_t text_offset = pos_;
    if (raw_end != std::string::npos) {
        state_ = State::Raw;
        pos_ = raw_end;
        line_starting_ = source_[raw_end - 1] == '\n';
    } else {
        state_ = kind == '{' ? State::Var : kind == '%' ? State::Block : State::Comment;
        pos_ = tag_end;
        line_starting_ = false;
    }
    if (kind != '#' && raw_end == std::string::npos)
        pending_.push_back(make(kind == '{' ? TokenType::VarBegin : TokenType::BlockBegin, p));
    if (!text.empty()) pending_.insert(pending_.begin(), make(TokenType::Data, text_offset, std::move(text)));
}

bool Lexer::match_end(size_t& end) {
    const size_t n = source_.size();
    if (state_ == State::Block) {
        if (source_.compare(pos_, 3, "+%}") == 0) { end = pos_ + 3; return true; }
        if (source_.compare(pos_, 3, "-%}") == 0) { end = skip_space(source_, pos_ + 3); return true; }
        if (source_.compare(pos_, 2, "%}") == 0) {
            end = pos_ + 2;
            if (end < n && source_[end] == '\n') ++end;  // trim_blocks
            return true;
        }
        return false;
    }
    if (source_.compare(pos_, 3, "-}}") == 0) { end = skip_space(source_, pos_ + 3); return true; }
    if (source_.compare(pos_, 2, "}}") == 0) { end = pos_ + 2; return true; }
    return false;
}

Token Lexer::lex_tag() {
    const size_t n = source_.size();
    while (true) {
        if (pos_ >= n) return make(TokenType::Eof, n);
        size_t end;
        if (balance_.empty() && match_end(end)) {
            Token t = make(state_ == State::Block ? TokenType::BlockEnd : TokenType::VarEnd, pos_);
            line_starting_ = source_[end - 1] == '\n';
            pos_ = end;
            state_ = State::Root;
            return t;
        }
        const size_t start = pos_;
        {  // whitespace
            size_t k = pos_;
            if (py_isspace(next_code_point(source_, k))) {
                const size_t j = skip_space(source_, pos_);
                line_starting_ = source_[j - 1] == '\n';
                pos_ = j;
                continue;
            }
        }
        line_starting_ = false;
        const char c = source_[pos_];
        // float: digits, then a fraction and/or an exponent; never right after a '.' (x.0.1)
        if (is_digit(c) && !(pos_ > 0 && source_[pos_ - 1] == '.')) {
            const size_t mant = digit_group(source_, pos_);
            size_t fend = std::string::npos;
            if (mant < n && source_[mant] == '.') fend = digit_group(source_, mant + 1);
            const size_t after = fend != std::string::npos ? fend : mant;
            size_t eend = std::string::npos;
            if (after < n && (source_[after] == 'e' || source_[after] == 'E')) {
                size_t j = after + 1;
                if (j < n && (source_[j] == '+' || source_[j] == '-')) ++j;
                eend = digit_group(source_, j);
            }
            const size_t fl_end = eend != std::string::npos ? eend : fend;
            if (fl_end != std::string::npos) {
                std::string text = source_.substr(pos_, fl_end - pos_);
                text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
                Token t = make(TokenType::Float, start, source_.substr(pos_, fl_end - pos_));
                t.number = std::strtod(text.c_str(), nullptr);
                pos_ = fl_end;
                return t;
            }
        }
        if (is_digit(c)) {
            size_t iend = std::string::npos;
            int base = 10;
            auto prefixed = [&](char lower, bool (*digit)(char)) {
                if (c != '0' || pos_ + 1 >= n || (source_[pos_ + 1] | 0x20) != lower) return false;
                size_t j = pos_ + 2;
                bool any = false;
                while (true) {
                    size_t k = j;
                    if (k < n && source_[k] == '_') ++k;
                    if (k < n && digit(source_[k])) {
                        j = k + 1;
                        any = true;
                    } else {
                        break;
                    }
                }
                if (any) iend = j;
                return any;
            };
            if (prefixed('b', [](char d) { return d == '0' || d == '1'; })) base = 2;
            else if (prefixed('o', [](char d) { return d >= '0' && d <= '7'; })) base = 8;
            else if (prefixed('x', [](char d) { return is_digit(d) || ((d | 0x20) >= 'a' && (d | 0x20) <= 'f'); })) base = 16;
            else {
                const char want = c == '0' ? '0' : 0;
                size_t j = pos_ + 1;
                while (true) {
                    size_t k = j;
                    if (k < n && source_[k] == '_') ++k;
                    if (k < n && (want ? source_[k] == '0' : is_digit(source_[k]))) j = k + 1;
                    else break;
                }
                iend = j;
            }
            std::string digits;
            for (size_t k = pos_ + (base == 10 ? 0 : 2); k < iend; ++k)
                if (source_[k] != '_') digits += source_[k];
            errno = 0;
            char* stop = nullptr;
            const unsigned long long v = std::strtoull(digits.c_str(), &stop, base);
            if (errno == ERANGE || v > uint64_t(INT64_MAX)) fail("integer literal too large (integers are 64-bit)", start);
            Token t = make(TokenType::Integer, start, source_.substr(pos_, iend - pos_));
            t.integer = int64_t(v);
            pos_ = iend;
            return t;
        }
        if (is_name_start(c)) {
            size_t j = pos_ + 1;
            while (j < n && is_name_char(source_[j])) ++j;
            Token t = make(TokenType::Name, start, source_.substr(pos_, j - pos_));
            pos_ = j;
            return t;
        }
        if (c == '\'' || c == '"') {
            size_t j = pos_ + 1;
            bool closed = false;
            while (j < n) {
                if (source_[j] == '\\') {
                    if (j + 1 >= n) break;
                    j += 2;
                } else if (source_[j] == c) {
                    closed = true;
                    break;
                } else {
                    ++j;
                }
            }
            if (closed) {
                std::string value, error;
                if (!decode_string_literal(std::string_view(source_).substr(pos_ + 1, j - pos_ - 1), value, error))
                    fail(error, start);
                Token t = make(TokenType::String, start, std::move(value));
                pos_ = j + 1;
                return t;
            }
        }
        static const char* two[] = {"//", "**", "==", "!=", ">=", "<="};
        std::string op;
        for (const char* o : two)
            if (source_.compare(pos_, 2, o) == 0) op = o;
        if (op.empty() && std::string_view("+-/*%~[](){}><=.:|,;").find(c) != std::string_view::npos) op = std::string(1, c);
        if (!op.empty()) {
            if (op == "{" || op == "(" || op == "[") {
                balance_.push_back(op == "{" ? '}' : op == "(" ? ')' : ']');
            } else if (op == "}" || op == ")" || op == "]") {
                if (balance_.empty()) fail("unexpected '" + op + "'", start);
                const char expected = balance_.back();
                balance_.pop_back();
                if (expected != op[0]) fail("unexpected '" + op + "', expected '" + std::string(1, expected) + "'", start);
            }
            pos_ += op.size();
            return make(TokenType::Operator, start, op);
        }
        size_t k = pos_;
        const char32_t bad = next_code_point(source_, k);
        std::string ch;
        append_utf8(ch, bad);
        fail("unexpected char " + py_string_repr(ch) + " at " + std::to_string(code_point_count(source_.substr(0, pos_))),
             start);
    }
}

void Lexer::skip_comment() {
    const size_t n = source_.size();
    const size_t h = source_.find("#}", pos_);
    if (h == std::string::npos) {
        if (pos_ < n) fail("Missing end of comment tag", pos_);
        state_ = State::Root;
        return;
    }
    size_t end;
    if (h > pos_ && source_[h - 1] == '+') {
        end = h + 2;
    } else if (h > pos_ && source_[h - 1] == '-') {
        end = h + 2;
        while (end < n) {
            size_t k = end;
            if (!py_isspace(next_code_point(source_, k))) break;
            end = k;
        }
    } else {
        end = h + 2;
        if (end < n && source_[end] == '\n') ++end;
    }
    line_starting_ = source_[end - 1] == '\n';
    pos_ = end;
    state_ = State::Root;
}

void Lexer::lex_raw() {
    const size_t n = source_.size();
    for (size_t q = source_.find("{%", pos_); q != std::string::npos; q = source_.find("{%", q + 1)) {
        size_t j = q + 2;
        char sign = 0;
        if (j < n && (source_[j] == '-' || source_[j] == '+')) sign = source_[j++];
        auto skip_ws = [&]() { j = skip_space(source_, j); };
        skip_ws();
        if (source_.compare(j, 6, "endraw") != 0) continue;
        j += 6;
        skip_ws();
        size_t end;
        if (source_.compare(j, 3, "+%}") == 0) {
            end = j + 3;
        } else if (source_.compare(j, 3, "-%}") == 0) {
            j += 3;
            skip_ws();
            end = j;
        } else if (source_.compare(j, 2, "%}") == 0) {
            end = j + 2;
            if (end < n && source_[end] == '\n') ++end;
        } else {
            continue;
        }
        std::string text = lstrip_text(source_.substr(pos_, q - pos_), sign, false);
        const size_t text_offset = pos_;
        line_starting_ = source_[end - 1] == '\n';
        pos_ = end;
        state_ = State::Root;
        if (!text.empty()) pending_.push_back(make(TokenType::Data, text_offset, std::move(text)));
        return;
    }
    if (pos_ < n) fail("Missing end of raw directive", pos_);
    state_ = State::Root;
}

}  // namespace folio::jinja
