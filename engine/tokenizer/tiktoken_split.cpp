#include "engine/tokenizer/tiktoken_split.h"

#include <array>

#include "engine/tokenizer/unicode_text.h"

namespace folio {
namespace {

enum : uint8_t { kLetter = 1, kNumber = 2, kSpace = 4, kCrLf = 8 };

constexpr std::array<uint8_t, 128> ascii_classes() {
    std::array<uint8_t, 128> t{};
    for (int c = 'a'; c <= 'z'; ++c) t[size_t(c)] = kLetter;
    for (int c = 'A'; c <= 'Z'; ++c) t[size_t(c)] = kLetter;
    for (int c = '0'; c <= '9'; ++c) t[size_t(c)] = kNumber;
    for (int c : {' ', '\t', '\v', '\f'}) t[size_t(c)] = kSpace;
    t['\r'] = t['\n'] = kSpace | kCrLf;
    return t;
}
constexpr std::array<uint8_t, 128> kAscii = ascii_classes();

struct Char {
    char32_t c = 0;
    uint32_t len = 0;  // 0 at the end of the text
    uint8_t cls = 0;
};

inline Char char_at(std::string_view s, size_t i) {
    if (i >= s.size()) return {};
    const auto b = uint8_t(s[i]);
    if (b < 0x80) return {b, 1, kAscii[b]};
    size_t len = 0;
    const char32_t c = unicode::decode_at(s, i, len);
    uint8_t cls = 0;
    if (unicode::is_white_space(c)) cls = kSpace;
    else if (unicode::is_letter(c)) cls = kLetter;
    else if (unicode::is_number(c)) cls = kNumber;
    return {c, uint32_t(len), cls};
}

inline bool is_other(const Char& ch) { return ch.len && !(ch.cls & (kLetter | kNumber | kSpace)); }

// The end of the run of characters of class `cls` starting at i.
inline size_t run_end(std::string_view s, size_t i, uint8_t cls) {
    for (;;) {
        if (i < s.size() && uint8_t(s[i]) < 0x80) {
            if (!(kAscii[uint8_t(s[i])] & cls)) return i;
            ++i;
            continue;
        }
        const Char ch = char_at(s, i);
        if (!(ch.cls & cls)) return i;
        i += ch.len;
    }
}

inline size_t other_run_end(std::string_view s, size_t i) {
    for (;;) {
        const Char ch = char_at(s, i);
        if (!is_other(ch)) return i;
        i += ch.len;
    }
}

// \s+(?!\S) then \s+ at a white-space character: the run, less its last character when a
// non-space follows and the run is longer than one character.
inline size_t space_run_match(std::string_view s, size_t i) {
    size_t j = i, last = i;
    for (;;) {
        const Char ch = char_at(s, j);
        if (!(ch.cls & kSpace)) break;
        last = j;
        j += ch.len;
    }
    if (j < s.size() && last > i) return last;
    return j;
}

char32_t fold(char32_t c) {  // the case folding (?i:...) applies to the contraction letters
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c == 0x17F) return 's';  // LATIN SMALL LETTER LONG S folds to 's'
    return c;
}

class Gpt2Split final : public SplitPattern {
public:
    void find_segments(std::string_view s, SegmentSink& sink) const override {
        for (size_t i = 0; i < s.size();) {
            const size_t end = match_at(s, i);
            sink.segment(i, end, true);
            i = end;
        }
    }

private:
    static size_t match_at(std::string_view s, size_t i) {
        const Char c0 = char_at(s, i);
        if (c0.c == '\'' && i + 1 < s.size()) {
            const char n1 = s[i + 1], n2 = i + 2 < s.size() ? s[i + 2] : '\0';
            if (n1 == 's' || n1 == 't' || n1 == 'm' || n1 == 'd') return i + 2;
            if ((n1 == 'r' && n2 == 'e') || (n1 == 'v' && n2 == 'e') || (n1 == 'l' && n2 == 'l')) return i + 3;
        }
        // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+': the class of the character after an optional
        // space decides which.
        size_t j = i;
        Char c = c0;
        if (c0.c == ' ') {
            const Char c1 = char_at(s, i + 1);
            if (c1.len && (c1.cls & (kLetter | kNumber) || is_other(c1))) {
                j = i + 1;
                c = c1;
            }
        }
        if (c.cls & kLetter) return run_end(s, j, kLetter);
        if (c.cls & kNumber) return run_end(s, j, kNumber);
        if (is_other(c)) return other_run_end(s, j);
        return space_run_match(s, i);
    }
};

class Cl100kSplit final : public SplitPattern {
public:
    explicit Cl100kSplit(size_t max_digits) : max_digits_(max_digits) {}

    void find_segments(std::string_view s, SegmentSink& sink) const override {
        for (size_t i = 0; i < s.size();) {
            const size_t end = match_at(s, i);
            sink.segment(i, end, true);
            i = end;
        }
    }

private:
    size_t match_at(std::string_view s, size_t i) const {
        const Char c0 = char_at(s, i);
        // (?i:'s|'t|'re|'ve|'m|'ll|'d)
        if (c0.c == '\'') {
            const Char c1 = char_at(s, i + 1);
            const char32_t f1 = fold(c1.c);
            if (c1.len && (f1 == 's' || f1 == 't' || f1 == 'm' || f1 == 'd')) return i + 1 + c1.len;
            if (c1.len && (f1 == 'r' || f1 == 'v' || f1 == 'l')) {
                const Char c2 = char_at(s, i + 1 + c1.len);
                if (c2.len && fold(c2.c) == (f1 == 'l' ? 'l' : 'e')) return i + 1 + c1.len + c2.len;
            }
        }
        // [^\r\n\p{L}\p{N}]?\p{L}+
        if (c0.cls & kLetter) return run_end(s, i, kLetter);
        if (!(c0.cls & (kLetter | kNumber | kCrLf))) {
            const Char c1 = char_at(s, i + c0.len);
            if (c1.cls & kLetter) return run_end(s, i + c0.len, kLetter);
        }
        // \p{N}{1,max}
        if (c0.cls & kNumber) {
            size_t j = i + c0.len, n = 1;
            while (n < max_digits_) {
                const Char ch = char_at(s, j);
                if (!(ch.cls & kNumber)) break;
                j += ch.len;
                ++n;
            }
            return j;
        }
        //  ?[^\s\p{L}\p{N}]+[\r\n]*
        size_t j = c0.c == ' ' ? i + 1 : i;
        if (is_other(char_at(s, j))) {
            j = other_run_end(s, j);
            while (j < s.size() && (s[j] == '\r' || s[j] == '\n')) ++j;
            return j;
        }
        // \s*[\r\n]+: the white-space run up to and including its last line break
        size_t end = i, last_break = size_t(-1);
        for (;;) {
            const Char ch = char_at(s, end);
            if (!(ch.cls & kSpace)) break;
            if (ch.cls & kCrLf) last_break = end;
            end += ch.len;
        }
        if (last_break != size_t(-1)) return last_break + 1;
        return space_run_match(s, i);
    }

    size_t max_digits_;
};

}  // namespace

std::unique_ptr<SplitPattern> make_tiktoken_split(const std::string& pattern) {
    if (pattern == kGpt2Pattern) return std::make_unique<Gpt2Split>();
    if (pattern == kLlama3Pattern) return std::make_unique<Cl100kSplit>(3);
    if (pattern == kQwen2Pattern) return std::make_unique<Cl100kSplit>(1);
    return nullptr;
}

}  // namespace folio
