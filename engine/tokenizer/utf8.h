#pragma once
// UTF-8 validity exactly as sentencepiece's decoder judges it (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), and its repair rule: each byte that does not begin a valid
// character becomes one U+FFFD. The byte tokenizer and the streaming detokenizer share it.
#include <string>
#include <string_view>

namespace folio::utf8 {

inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// For the bytes at the start of `s` (not empty): the length (1..4) of the valid character they
// begin; 0 when they are a valid but incomplete beginning (more bytes could complete it); -1 when
// s[0] cannot begin a valid character followed by what follows it.
int classify(std::string_view s);

// Moves the decodable part of `pending` to `out`: complete characters as they are, bytes that cannot
// begin a character as U+FFFD. An incomplete beginning at the end stays in `pending` unless `final`,
// in which case each of its bytes becomes U+FFFD too.
void drain(std::string& pending, std::string& out, bool final);

// True when `s` is entirely valid UTF-8.
bool is_valid(std::string_view s);

}  // namespace folio::utf8
