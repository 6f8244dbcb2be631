#pragma once
// Code points and character classes for the tokenizer.json pipeline, with the meanings the Hugging
// Face tokenizers library gives them (Oniguruma's \s and \p{...}, Rust's char and regex classes).
// Categories come from ICU; UTF-8 repair follows the "maximal subpart" rule that Rust's
// String::from_utf8_lossy and the WHATWG TextDecoder use (one U+FFFD per maximal invalid
// subsequence), which differs from sentencepiece's one-per-byte rule in utf8.h.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace folio::unicode {

inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the UTF-8 sequence that `lead` begins, for valid UTF-8 (1 for a stray byte).
inline size_t sequence_length(uint8_t lead) {
    if (lead < 0x80) return 1;
    if (lead >= 0xF0) return 4;
    if (lead >= 0xE0) return 3;
    if (lead >= 0xC0) return 2;
    return 1;
}

// The code point starting at s[i] of valid UTF-8; `len` receives its byte length.
inline char32_t decode_at(std::string_view s, size_t i, size_t& len) {
    const auto b0 = uint8_t(s[i]);
    len = sequence_length(b0);
    if (len == 1) return b0;
    char32_t c = b0 & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) c = (c << 6) | (uint8_t(s[i + k]) & 0x3F);
    return c;
}

void append_utf8(std::string& out, char32_t c);

// Length of the valid character starting s[0] (1..4), or 0 when s[0] does not begin one.
size_t valid_char_length(std::string_view s);
// s[0] does not begin a valid character: the length of the maximal subpart that one U+FFFD replaces
// (the lead byte and the continuation bytes that could still have completed it).
size_t invalid_subpart_length(std::string_view s);

// Offset of the first byte that is not part of valid UTF-8, or s.size() when all of it is valid.
size_t first_invalid_byte(std::string_view s);
// `s` with every maximal invalid subsequence replaced by U+FFFD.
std::string to_valid_utf8(std::string_view s);

// Bytes to text in pieces, never returning part of a character: an incomplete sequence at the end
// of what was pushed is held until later bytes complete it or show it invalid; finish() turns a
// held incomplete sequence into one U+FFFD. push(a); push(b); finish() == to_valid_utf8(a + b).
class Utf8Repairer {
public:
    void push(std::string_view bytes, std::string& out);
    void finish(std::string& out);
    bool holding() const { return !pending_.empty(); }

private:
    std::string pending_;
};

// Character classes (code points of valid UTF-8).
bool is_letter(char32_t c);       // \p{L}
bool is_number(char32_t c);       // \p{N} (Rust's char::is_numeric)
bool is_white_space(char32_t c);  // White_Space: Oniguruma's \s, Rust's char::is_whitespace
bool is_word_char(char32_t c);    // Rust regex \w: Alphabetic, marks, Nd, Pc, Join_Control

}  // namespace folio::unicode
