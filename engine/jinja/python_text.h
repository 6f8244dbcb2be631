#pragma once
// Python's view of text, for a template engine that must print exactly what Python prints: UTF-8 to
// code points and back, the character classes of str.isspace()/isalpha()/isprintable(), case mapping,
// and the str methods templates call (strip, split, replace, title, ...). Indices and lengths count
// code points, as Python's do.
//
// Bytes that are not valid UTF-8 decode to U+DC80..U+DCFF (Python's "surrogateescape") and encode
// back to the same byte, so every byte string round-trips and nothing reads past the end.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace folio::jinja {

char32_t next_code_point(std::string_view s, size_t& i);
void append_utf8(std::string& out, char32_t cp);
std::u32string to_code_points(std::string_view s);
std::string to_utf8(std::u32string_view s);
size_t code_point_count(std::string_view s);
bool is_ascii(std::string_view s);
// Offset of the first byte that is not part of valid UTF-8, or npos.
size_t find_invalid_utf8(std::string_view s);

// Character classes, as Python 3.11 defines them. Outside ASCII, Latin, Greek, Cyrillic, Armenian and
// the common CJK blocks these are approximations (no full Unicode database is compiled in).
bool py_isspace(char32_t c);      // str.isspace(): also U+00A0, U+2000..U+200A, U+3000, ...
bool py_islinebreak(char32_t c);  // str.splitlines() boundaries
bool py_isprintable(char32_t c);  // what repr() leaves unescaped
bool py_isalpha(char32_t c);
bool py_isdecimal(char32_t c);
bool py_isdigit(char32_t c);
bool py_isnumeric(char32_t c);
bool py_isalnum(char32_t c);
bool py_isword(char32_t c);  // the regex class \w
bool py_isupper_char(char32_t c);
bool py_islower_char(char32_t c);
bool py_iscased(char32_t c);

// str methods. `chars`/`sep` absent means Python's None.
std::string py_upper(std::string_view s);
std::string py_lower(std::string_view s);
std::string py_title(std::string_view s);       // str.title()
std::string py_capitalize(std::string_view s);  // str.capitalize()
std::string py_swapcase(std::string_view s);
std::string py_strip(std::string_view s, const std::optional<std::string>& chars, bool left, bool right);
std::vector<std::string> py_split(std::string_view s, const std::optional<std::string>& sep, int64_t maxsplit);
std::vector<std::string> py_rsplit(std::string_view s, const std::optional<std::string>& sep, int64_t maxsplit);
std::vector<std::string> py_splitlines(std::string_view s, bool keepends);
std::string py_replace(std::string_view s, std::string_view old, std::string_view repl, int64_t count);
// str.find/rfind/count over s[start:end] (code point indices, Python slice rules); -1 when absent.
int64_t py_find(std::string_view s, std::string_view sub, std::optional<int64_t> start, std::optional<int64_t> end,
                bool reverse);
int64_t py_count(std::string_view s, std::string_view sub, std::optional<int64_t> start, std::optional<int64_t> end);
// s[start:end] with Python's slice clamping, in code points.
std::string py_substr(std::string_view s, std::optional<int64_t> start, std::optional<int64_t> end);
bool py_is_class(std::string_view s, bool (*pred)(char32_t));  // non-empty and every char matches
bool py_isupper(std::string_view s);  // str.isupper()
bool py_islower(std::string_view s);
bool py_istitle(std::string_view s);
// str.center/ljust/rjust/zfill (width in code points).
std::string py_pad(std::string_view s, int64_t width, char32_t fill, char align /* '<' '>' '^' */);
std::string py_zfill(std::string_view s, int64_t width);

// markupsafe's escape(): & < > ' " as HTML entities.
std::string html_escape(std::string_view s);

// Python's repr() of a str: quotes chosen as Python chooses them, non-printable characters escaped.
std::string py_string_repr(std::string_view s);

}  // namespace folio::jinja
