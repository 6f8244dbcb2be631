#pragma once
// GPT-2's byte-level alphabet: each byte is shown as one printable character (printable Latin-1
// bytes as themselves, the other 68 as U+0100..U+0143, so ' ' is 'Ġ' and '\n' is 'Ċ'). Byte-level
// vocabularies are written in it.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace folio::byte_level {

// The character that stands for byte b.
char32_t char_of(uint8_t b);
// The UTF-8 of char_of(b), for every byte (built once; constexpr-friendly data).
const std::array<std::string, 256>& utf8_of_bytes();
// The byte a character stands for, or -1 for a character outside the alphabet.
int byte_of(char32_t c);

// Bytes to their alphabet characters (UTF-8), appended to out.
void append_mapped(std::string_view bytes, std::string& out);
// Alphabet text back to bytes; false (out unspecified) when `text` holds a character outside the
// alphabet or is not valid UTF-8.
bool unmap(std::string_view text, std::string& out);

}  // namespace folio::byte_level
