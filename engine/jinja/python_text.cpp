#include "engine/jinja/python_text.h"

#include <algorithm>

namespace folio::jinja {

// ---- UTF-8 -------------------------------------------------------------------------------------

char32_t next_code_point(std::string_view s, size_t& i) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    auto escaped = [&]() -> char32_t { ++i; return 0xDC00 + b0; };
    if (b0 < 0x80) { ++i; return b0; }
    int n;
    char32_t cp;
    if (b0 >= 0xC2 && b0 <= 0xDF) { n = 1; cp = b0 & 0x1F; }
    else if (b0 >= 0xE0 && b0 <= 0xEF) { n = 2; cp = b0 & 0x0F; }
    else if (b0 >= 0xF0 && b0 <= 0xF4) { n = 3; cp = b0 & 0x07; }
    else return escaped();
    if (i + size_t(n) >= s.size()) return escaped();
    for (int k = 1; k <= n; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) return escaped();
        cp = (cp << 6) | (b & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return escaped();
    i += n + 1;
    return cp;
}

void append_utf8(std::string& out, char32_t cp) {
    if (cp >= 0xDC80 && cp <= 0xDCFF) {  // an escaped raw byte goes back out as that byte
        out += char(cp - 0xDC00);
    } else if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;  // a lone surrogate cannot be written as UTF-8
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp <= 0x10FFFF) {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        append_utf8(out, 0xFFFD);
    }
}

std::u32string to_code_points(std::string_view s) {
    std::u32string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) out += next_code_point(s, i);
    return out;
}

std::string to_utf8(std::u32string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char32_t c : s) append_utf8(out, c);
    return out;
}

bool is_ascii(std::string_view s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
}

size_t code_point_count(std::string_view s) {
    if (is_ascii(s)) return s.size();
    size_t n = 0;
    for (size_t i = 0; i < s.size(); ++n) next_code_point(s, i);
    return n;
}

size_t find_invalid_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const size_t at = i;
        const char32_t c = next_code_point(s, i);
        if (c >= 0xDC80 && c <= 0xDCFF) return at;
    }
    return std::string_view::npos;
}

// ---- character classes ---------------------------------------------------------------------------

bool py_isspace(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool py_islinebreak(char32_t c) {
    return c == 0x0A || c == 0x0B || c == 0x0C || c == 0x0D || c == 0x1C || c == 0x1D || c == 0x1E || c == 0x85 ||
           c == 0x2028 || c == 0x2029;
}

bool py_isprintable(char32_t c) {
    if (c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD) return false;
    if (c == 0x1680 || (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x2064) ||
        (c >= 0x2066 && c <= 0x206F) || c == 0x3000 || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB))
        return false;
    if ((c >= 0x600 && c <= 0x605) || c == 0x61C || c == 0x6DD || c == 0x70F || c == 0x180E || c == 0x8E2) return false;
    if (c >= 0xD800 && c <= 0xDFFF) return false;                       // surrogates (and escaped bytes)
    if ((c >= 0xE000 && c <= 0xF8FF) || c >= 0xF0000) return false;    // private use
    if ((c & 0xFFFE) == 0xFFFE || (c >= 0xFDD0 && c <= 0xFDEF)) return false;  // noncharacters
    if (c == 0x110BD || c == 0x110CD || (c >= 0x13430 && c <= 0x1343F) || (c >= 0x1BCA0 && c <= 0x1BCA3) ||
        (c >= 0x1D173 && c <= 0x1D17A) || c == 0xE0001 || (c >= 0xE0020 && c <= 0xE007F))
        return false;
    return true;
}

namespace {
bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }
}  // namespace

bool py_isdecimal(char32_t c) {
    return in(c, '0', '9') || in(c, 0x660, 0x669) || in(c, 0x6F0, 0x6F9) || in(c, 0x7C0, 0x7C9) ||
           in(c, 0x966, 0x96F) || in(c, 0x9E6, 0x9EF) || in(c, 0xE50, 0xE59) || in(c, 0xFF10, 0xFF19);
}

bool py_isdigit(char32_t c) {
    return py_isdecimal(c) || c == 0xB2 || c == 0xB3 || c == 0xB9 || c == 0x2070 || in(c, 0x2074, 0x2079) ||
           in(c, 0x2080, 0x2089) || in(c, 0x2460, 0x2468) || in(c, 0x2474, 0x247C) || in(c, 0x2488, 0x2490);
}

bool py_isnumeric(char32_t c) {
    if (py_isdigit(c) || in(c, 0xBC, 0xBE) || in(c, 0x2150, 0x2182) || in(c, 0x2469, 0x2473) || c == 0x3007)
        return true;
    switch (c) {  // the common CJK numerals
    case 0x4E00: case 0x4E8C: case 0x4E09: case 0x56DB: case 0x4E94: case 0x516D: case 0x4E03: case 0x516B:
    case 0x4E5D: case 0x5341: case 0x767E: case 0x5343: case 0x4E07: case 0x5104: case 0x5146: case 0x96F6:
        return true;
    default: return false;
    }
}

bool py_isalpha(char32_t c) {
    if (c < 0x80) return in(c, 'a', 'z') || in(c, 'A', 'Z');
    if (py_iscased(c)) return !in(c, 0x2160, 0x2188) && !in(c, 0x24B6, 0x24E9);  // Nl / So, not letters
    if (py_isnumeric(c) && !in(c, 0x4E00, 0x9FFF)) return false;
    if (c == 0xAA || c == 0xBA || in(c, 0xC0, 0x24F)) return c != 0xD7 && c != 0xF7;
    return in(c, 0x250, 0x2C1) || in(c, 0x370, 0x373) || in(c, 0x376, 0x377) || in(c, 0x37B, 0x37D) ||
           in(c, 0x388, 0x3FF) || in(c, 0x400, 0x481) || in(c, 0x48A, 0x52F) || in(c, 0x531, 0x556) ||
           in(c, 0x561, 0x587) || in(c, 0x5D0, 0x5EA) || in(c, 0x5EF, 0x5F2) || in(c, 0x620, 0x64A) ||
           in(c, 0x671, 0x6D3) || in(c, 0x904, 0x939) || in(c, 0xE01, 0xE30) || in(c, 0x10A0, 0x10FF) ||
           in(c, 0x1100, 0x11FF) || in(c, 0x1E00, 0x1FBC) || in(c, 0x3041, 0x3096) ||
           in(c, 0x30A1, 0x30FA) || in(c, 0x3105, 0x312F) || in(c, 0x3131, 0x318E) ||
           in(c, 0x3400, 0x4DBF) || in(c, 0x4E00, 0x9FFF) || in(c, 0xAC00, 0xD7A3) ||
           in(c, 0xF900, 0xFAFF) || in(c, 0xFF21, 0xFF3A) || in(c, 0xFF41, 0xFF5A) ||
           in(c, 0xFF66, 0xFF9D) || in(c, 0x20000, 0x3134F);
}

bool py_isalnum(char32_t c) { return py_isalpha(c) || py_isnumeric(c); }
bool py_isword(char32_t c) { return c == '_' || py_isalnum(c); }

// ---- str methods ---------------------------------------------------------------------------------

std::string py_strip(std::string_view s, const std::optional<std::string>& chars, bool left, bool right) {
    const std::u32string cps = to_code_points(s);
    std::u32string set;
    if (chars) set = to_code_points(*chars);
    auto strip_it = [&](char32_t c) { return chars ? set.find(c) != std::u32string::npos : py_isspace(c); };
    size_t b = 0, e = cps.size();
    if (left)
        while (b < e && strip_it(cps[b])) ++b;
    if (right)
        while (e > b && strip_it(cps[e - 1])) --e;
    return to_utf8(std::u32string_view(cps).substr(b, e - b));
}

std::vector<std::string> py_split(std::string_view s, const std::optional<std::string>& sep, int64_t maxsplit) {
    std::vector<std::string> out;
    if (maxsplit < 0) maxsplit = INT64_MAX;
    if (!sep) {
        const std::u32string cps = to_code_points(s);
        size_t i = 0;
        const size_t n = cps.size();
        while (true) {
            while (i < n && py_isspace(cps[i])) ++i;
            if (i >= n) break;
            if (int64_t(out.size()) >= maxsplit) {
                out.push_back(to_utf8(std::u32string_view(cps).substr(i)));
                break;
            }
            size_t j = i;
            while (j < n && !py_isspace(cps[j])) ++j;
            out.push_back(to_utf8(std::u32string_view(cps).substr(i, j - i)));
            i = j;
        }
        return out;
    }
    size_t start = 0;
    while (int64_t(out.size()) < maxsplit) {
        const size_t at = s.find(*sep, start);
        if (at == std::string_view::npos) break;
        out.emplace_back(s.substr(start, at - start));
        start = at + sep->size();
    }
    out.emplace_back(s.substr(start));
    return out;
}

std::vector<std::string> py_rsplit(std::string_view s, const std::optional<std::string>& sep, int64_t maxsplit) {
    std::vector<std::string> out;
    if (maxsplit < 0) maxsplit = INT64_MAX;
    if (!sep) {
        const std::u32string cps = to_code_points(s);
        size_t e = cps.size();
        while (true) {
            while (e > 0 && py_isspace(cps[e - 1])) --e;
            if (e == 0) break;
            if (int64_t(out.size()) >= maxsplit) {
                out.push_back(to_utf8(std::u32string_view(cps).substr(0, e)));
                break;
            }
            size_t b = e;
            while (b > 0 && !py_isspace(cps[b - 1])) --b;
            out.push_back(to_utf8(std::u32string_view(cps).substr(b, e - b)));
            e = b;
        }
        std::reverse(out.begin(), out.end());
        return out;
    }
    size_t end = s.size();
    while (int64_t(out.size()) < maxsplit && end >= sep->size()) {
        const size_t at = s.rfind(*sep, end - sep->size());
        if (at == std::string_view::npos) break;
        out.emplace_back(s.substr(at + sep->size(), end - at - sep->size()));
        end = at;
    }
    out.emplace_back(s.substr(0, end));
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<std::string> py_splitlines(std::string_view s, bool keepends) {
    std::vector<std::string> out;
    const std::u32string cps = to_code_points(s);
    size_t i = 0, start = 0;
    while (i < cps.size()) {
        if (!py_islinebreak(cps[i])) { ++i; continue; }
        size_t eol = i + 1;
        if (cps[i] == '\r' && eol < cps.size() && cps[eol] == '\n') ++eol;
        out.push_back(to_utf8(std::u32string_view(cps).substr(start, (keepends ? eol : i) - start)));
        start = i = eol;
    }
    if (start < cps.size()) out.push_back(to_utf8(std::u32string_view(cps).substr(start)));
    return out;
}

std::string py_replace(std::string_view s, std::string_view old, std::string_view repl, int64_t count) {
    if (count < 0) count = INT64_MAX;
    std::string out;
    if (old.empty()) {  // Python inserts `repl` before every character and at the end
        size_t i = 0;
        int64_t done = 0;
        while (i < s.size()) {
            if (done < count) { out += repl; ++done; }
            const size_t at = i;
            next_code_point(s, i);
            out += s.substr(at, i - at);
        }
        if (done < count) out += repl;
        return out;
    }
    size_t start = 0;
    for (int64_t done = 0; done < count; ++done) {
        const size_t at = s.find(old, start);
        if (at == std::string_view::npos) break;
        out += s.substr(start, at - start);
        out += repl;
        start = at + old.size();
    }
    out += s.substr(start);
    return out;
}

namespace {
// Python slice bounds: negative counts from the end, then clamp to [0, n].
size_t clamp_index(std::optional<int64_t> v, size_t n, size_t fallback) {
    if (!v) return fallback;
    int64_t x = *v;
    if (x < 0) x += int64_t(n);
    if (x < 0) x = 0;
    if (x > int64_t(n)) x = int64_t(n);
    return size_t(x);
}
}  // namespace

int64_t py_find(std::string_view s, std::string_view sub, std::optional<int64_t> start, std::optional<int64_t> end,
                bool reverse) {
    const std::u32string hay = to_code_points(s), needle = to_code_points(sub);
    const size_t n = hay.size();
    const size_t b = clamp_index(start, n, 0), e = clamp_index(end, n, n);
    if (b > e || e - b < needle.size()) return -1;
    const std::u32string_view window = std::u32string_view(hay).substr(b, e - b);
    const size_t at = reverse ? window.rfind(needle) : window.find(needle);
    return at == std::u32string_view::npos ? -1 : int64_t(b + at);
}

int64_t py_count(std::string_view s, std::string_view sub, std::optional<int64_t> start, std::optional<int64_t> end) {
    const std::u32string hay = to_code_points(s), needle = to_code_points(sub);
    const size_t n = hay.size();
    const size_t b = clamp_index(start, n, 0), e = clamp_index(end, n, n);
    if (b > e || e - b < needle.size()) return 0;
    if (needle.empty()) return int64_t(e - b + 1);
    int64_t count = 0;
    const std::u32string_view window = std::u32string_view(hay).substr(b, e - b);
    for (size_t at = window.find(needle); at != std::u32string_view::npos; at = window.find(needle, at + needle.size()))
        ++count;
    return count;
}

std::string py_substr(std::string_view s, std::optional<int64_t> start, std::optional<int64_t> end) {
    const std::u32string cps = to_code_points(s);
    const size_t n = cps.size();
    const size_t b = clamp_index(start, n, 0), e = clamp_index(end, n, n);
    if (b >= e) return {};
    return to_utf8(std::u32string_view(cps).substr(b, e - b));
}

bool py_is_class(std::string_view s, bool (*pred)(char32_t)) {
    if (s.empty()) return false;
    for (size_t i = 0; i < s.size();)
        if (!pred(next_code_point(s, i))) return false;
    return true;
}

std::string py_pad(std::string_view s, int64_t width, char32_t fill, char align) {
    const int64_t n = int64_t(code_point_count(s));
    if (width <= n) return std::string(s);
    const int64_t total = width - n;
    int64_t left = 0;
    if (align == '>') left = total;
    else if (align == '^') left = total / 2 + (total & width & 1);  // CPython's str.center rounding
    std::string pad_l, pad_r;
    for (int64_t k = 0; k < left; ++k) append_utf8(pad_l, fill);
    for (int64_t k = 0; k < total - left; ++k) append_utf8(pad_r, fill);
    return pad_l + std::string(s) + pad_r;
}

std::string py_zfill(std::string_view s, int64_t width) {
    const int64_t n = int64_t(code_point_count(s));
    if (width <= n) return std::string(s);
    std::string out;
    size_t sign = 0;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) { out += s[0]; sign = 1; }
    out.append(size_t(width - n), '0');
    out += s.substr(sign);
    return out;
}

std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '\'': out += "&#39;"; break;
        case '"': out += "&#34;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string py_string_repr(std::string_view s) {
    const bool has_single = s.find('\'') != std::string_view::npos;
    const bool has_double = s.find('"') != std::string_view::npos;
    const char quote = (has_single && !has_double) ? '"' : '\'';
    std::string out(1, quote);
    static const char* hex = "0123456789abcdef";
    for (size_t i = 0; i < s.size();) {
        const char32_t c = next_code_point(s, i);
        if (c == char32_t(quote) || c == '\\') { out += '\\'; out += char(c); }
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c == '\t') out += "\\t";
        else if (py_isprintable(c)) append_utf8(out, c);
        else if (c < 0x100) { out += "\\x"; out += hex[c >> 4]; out += hex[c & 15]; }
        else if (c < 0x10000) {
            out += "\\u";
            for (int k = 12; k >= 0; k -= 4) out += hex[(c >> k) & 15];
        } else {
            out += "\\U";
            for (int k = 28; k >= 0; k -= 4) out += hex[(c >> k) & 15];
        }
    }
    out += quote;
    return out;
}

}  // namespace folio::jinja
