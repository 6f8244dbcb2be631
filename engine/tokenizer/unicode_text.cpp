#include "engine/tokenizer/unicode_text.h"

#include <simdjson.h>
#include <unicode/uchar.h>

namespace folio::unicode {

void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out.push_back(char(c));
    } else if (c < 0x800) {
        out.push_back(char(0xC0 | (c >> 6)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(char(0xE0 | (c >> 12)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else {
        out.push_back(char(0xF0 | (c >> 18)));
        out.push_back(char(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    }
}

namespace {

// For a lead byte: the sequence length and the allowed range of the second byte (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF); length 0 for bytes that lead nothing.
struct Lead {
    size_t len;
    uint8_t lo, hi;
};

Lead lead_of(uint8_t b) {
    if (b < 0x80) return {1, 0, 0};
    if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
    if (b == 0xE0) return {3, 0xA0, 0xBF};
    if (b == 0xED) return {3, 0x80, 0x9F};
    if (b >= 0xE1 && b <= 0xEF) return {3, 0x80, 0xBF};
    if (b == 0xF0) return {4, 0x90, 0xBF};
    if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
    if (b == 0xF4) return {4, 0x80, 0x8F};
    return {0, 0, 0};
}

// How many bytes from s[0] form a valid prefix of a character (the lead and fitting continuations).
size_t valid_prefix(std::string_view s, const Lead& l) {
    size_t k = 1;
    while (k < l.len && k < s.size()) {
        const auto b = uint8_t(s[k]);
        const bool ok = k == 1 ? (b >= l.lo && b <= l.hi) : (b >= 0x80 && b <= 0xBF);
        if (!ok) break;
        ++k;
    }
    return k;
}

}  // namespace

size_t valid_char_length(std::string_view s) {
    const Lead l = lead_of(uint8_t(s[0]));
    if (l.len <= 1) return l.len;
    return valid_prefix(s, l) == l.len ? l.len : 0;
}

size_t invalid_subpart_length(std::string_view s) {
    const Lead l = lead_of(uint8_t(s[0]));
    if (l.len == 0) return 1;
    return valid_prefix(s, l);
}

size_t first_invalid_byte(std::string_view s) {
    if (simdjson::validate_utf8(s.data(), s.size())) return s.size();  // the common case, SIMD-fast
    size_t i = 0;
    while (i < s.size()) {
        // ASCII runs eight bytes at a time: the common case.
        while (i + 8 <= s.size()) {
            uint64_t v;
            __builtin_memcpy(&v, s.data() + i, 8);
            if (v & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i >= s.size()) break;
        if (uint8_t(s[i]) < 0x80) {
            ++i;
            continue;
        }
        const size_t n = valid_char_length(s.substr(i));
        if (n == 0) return i;
        i += n;
    }
    return s.size();
}

std::string to_valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 8);
    size_t i = 0;
    while (i < s.size()) {
        const size_t bad = first_invalid_byte(s.substr(i));
        out.append(s.substr(i, bad));
        i += bad;
        if (i >= s.size()) break;
        out.append(kReplacement);
        i += invalid_subpart_length(s.substr(i));
    }
    return out;
}

void Utf8Repairer::push(std::string_view bytes, std::string& out) {
    std::string_view s = bytes;
    std::string joined;
    if (!pending_.empty()) {
        joined = pending_;
        joined.append(bytes);
        pending_.clear();
        s = joined;
    }
    size_t i = 0;
    while (i < s.size()) {
        const size_t good = first_invalid_byte(s.substr(i));
        out.append(s.substr(i, good));
        i += good;
        if (i >= s.size()) break;
        const std::string_view rest = s.substr(i);
        const size_t sub = invalid_subpart_length(rest);
        if (i + sub == s.size() && sub < lead_of(uint8_t(rest[0])).len) {
            pending_.assign(rest);  // a valid beginning cut off by the end: later bytes may complete it
            return;
        }
        out.append(kReplacement);
        i += sub;
    }
}

void Utf8Repairer::finish(std::string& out) {
    if (!pending_.empty()) out.append(kReplacement);  // one maximal subpart
    pending_.clear();
}

bool is_letter(char32_t c) {
    if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    return (U_GET_GC_MASK(UChar32(c)) & U_GC_L_MASK) != 0;
}

bool is_number(char32_t c) {
    if (c < 0x80) return c >= '0' && c <= '9';
    return (U_GET_GC_MASK(UChar32(c)) & U_GC_N_MASK) != 0;
}

bool is_white_space(char32_t c) {
    // The White_Space property, unchanged since Unicode 6.3; spelled out because it is on the hot
    // path and small.
    if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D);
    switch (c) {
        case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
            return true;
        default:
            return c >= 0x2000 && c <= 0x200A;
    }
}

bool is_word_char(char32_t c) {
    if (c < 0x80) return is_letter(c) || is_number(c) || c == '_';
    const uint32_t mask = U_GET_GC_MASK(UChar32(c));
    return u_isUAlphabetic(UChar32(c)) || (mask & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0 ||
           c == 0x200C || c == 0x200D;
}

}  // namespace folio::unicode
