#include "engine/jinja/python_text.h"

// Case mapping as Python does it: simple mappings for Latin, Greek, Cyrillic, Armenian and
// fullwidth letters, the full mappings that expand (ß → SS), titlecase digraphs (ǅ), final sigma.

namespace folio::jinja {

namespace {

bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }
bool odd(char32_t c) { return c & 1; }

// Simple (one to one) mappings for the scripts we cover; identity elsewhere.
char32_t simple_upper(char32_t c) {
    if (c < 0x80) return in(c, 'a', 'z') ? c - 32 : c;
    if (c == 0xB5) return 0x39C;
    if (in(c, 0xE0, 0xFE) && c != 0xF7) return c - 32;
    if (c == 0xFF) return 0x178;
    if (in(c, 0x100, 0x12F) || in(c, 0x132, 0x137) || in(c, 0x14A, 0x177)) return odd(c) ? c - 1 : c;
    if (c == 0x131) return 'I';
    if (in(c, 0x139, 0x148) || in(c, 0x179, 0x17E)) return odd(c) ? c : c - 1;
    if (c == 0x17F) return 'S';
    if (c == 0x1C5 || c == 0x1C6) return 0x1C4;
    if (c == 0x1C8 || c == 0x1C9) return 0x1C7;
    if (c == 0x1CB || c == 0x1CC) return 0x1CA;
    if (c == 0x1F2 || c == 0x1F3) return 0x1F1;
    if (in(c, 0x1CD, 0x1DC)) return odd(c) ? c : c - 1;
    if (in(c, 0x1DE, 0x1EF) || in(c, 0x1F8, 0x21F) || in(c, 0x222, 0x233)) return odd(c) ? c - 1 : c;
    if (c == 0x3C2) return 0x3A3;
    if (in(c, 0x3B1, 0x3CB)) return c - 32;
    if (c == 0x3AC) return 0x386;
    if (in(c, 0x3AD, 0x3AF)) return c - 37;
    if (c == 0x3CC) return 0x38C;
    if (in(c, 0x3CD, 0x3CE)) return c - 63;
    if (in(c, 0x430, 0x44F)) return c - 32;
    if (in(c, 0x450, 0x45F)) return c - 80;
    if (in(c, 0x460, 0x481) || in(c, 0x48A, 0x4BF) || in(c, 0x4D0, 0x52F)) return odd(c) ? c - 1 : c;
    if (in(c, 0x4C1, 0x4CE)) return odd(c) ? c : c - 1;
    if (c == 0x4CF) return 0x4C0;
    if (in(c, 0x561, 0x586)) return c - 48;
    if (in(c, 0x1E00, 0x1E95) || in(c, 0x1EA0, 0x1EFF)) return odd(c) ? c - 1 : c;
    if (in(c, 0x2170, 0x217F)) return c - 16;
    if (in(c, 0x24D0, 0x24E9)) return c - 26;
    if (in(c, 0xFF41, 0xFF5A)) return c - 32;
    if (in(c, 0x10428, 0x1044F)) return c - 40;
    return c;
}

char32_t simple_lower(char32_t c) {
    if (c < 0x80) return in(c, 'A', 'Z') ? c + 32 : c;
    if (in(c, 0xC0, 0xDE) && c != 0xD7) return c + 32;
    if (c == 0x178) return 0xFF;
    if (in(c, 0x100, 0x12F) || in(c, 0x132, 0x137) || in(c, 0x14A, 0x177)) return odd(c) ? c : c + 1;
    if (in(c, 0x139, 0x148) || in(c, 0x179, 0x17E)) return odd(c) ? c + 1 : c;
    if (c == 0x1C4 || c == 0x1C5) return 0x1C6;
    if (c == 0x1C7 || c == 0x1C8) return 0x1C9;
    if (c == 0x1CA || c == 0x1CB) return 0x1CC;
    if (c == 0x1F1 || c == 0x1F2) return 0x1F3;
    if (in(c, 0x1CD, 0x1DC)) return odd(c) ? c + 1 : c;
    if (in(c, 0x1DE, 0x1EF) || in(c, 0x1F8, 0x21F) || in(c, 0x222, 0x233)) return odd(c) ? c : c + 1;
    if (in(c, 0x391, 0x3AB) && c != 0x3A2) return c + 32;
    if (c == 0x386) return 0x3AC;
    if (in(c, 0x388, 0x38A)) return c + 37;
    if (c == 0x38C) return 0x3CC;
    if (in(c, 0x38E, 0x38F)) return c + 63;
    if (in(c, 0x410, 0x42F)) return c + 32;
    if (in(c, 0x400, 0x40F)) return c + 80;
    if (in(c, 0x460, 0x481) || in(c, 0x48A, 0x4BF) || in(c, 0x4D0, 0x52F)) return odd(c) ? c : c + 1;
    if (in(c, 0x4C1, 0x4CE)) return odd(c) ? c + 1 : c;
    if (c == 0x4C0) return 0x4CF;
    if (in(c, 0x531, 0x556)) return c + 48;
    if (in(c, 0x1E00, 0x1E95) || in(c, 0x1EA0, 0x1EFF)) return odd(c) ? c : c + 1;
    if (c == 0x1E9E) return 0xDF;
    if (in(c, 0x2160, 0x216F)) return c + 16;
    if (in(c, 0x24B6, 0x24CF)) return c + 26;
    if (in(c, 0xFF21, 0xFF3A)) return c + 32;
    if (in(c, 0x10400, 0x10427)) return c + 40;
    return c;
}

// Lowercase letters without a simple uppercase partner (still "cased" for title()/isupper()).
bool lower_only(char32_t c) {
    return c == 0xAA || c == 0xBA || c == 0xDF || c == 0x138 || c == 0x149 || c == 0x1F0 || c == 0x390 ||
           c == 0x3B0 || c == 0x587 || in(c, 0xFB00, 0xFB06) || in(c, 0x250, 0x2AF);
}

bool titlecase_digraph(char32_t c) { return c == 0x1C5 || c == 0x1C8 || c == 0x1CB || c == 0x1F2; }

// Full uppercase mappings that expand to several characters.
bool append_full_upper(std::u32string& out, char32_t c, bool title) {
    switch (c) {
    case 0xDF: out += title ? U"Ss" : U"SS"; return true;
    case 0x149: out += U"\u02BCN"; return true;
    case 0x1F0: out += U"J\u030C"; return true;
    case 0x390: out += U"\u0399\u0308\u0301"; return true;
    case 0x3B0: out += U"\u03A5\u0308\u0301"; return true;
    case 0x587: out += title ? U"\u0535\u0582" : U"\u0535\u0552"; return true;
    case 0xFB00: out += title ? U"Ff" : U"FF"; return true;
    case 0xFB01: out += title ? U"Fi" : U"FI"; return true;
    case 0xFB02: out += title ? U"Fl" : U"FL"; return true;
    case 0xFB03: out += title ? U"Ffi" : U"FFI"; return true;
    case 0xFB04: out += title ? U"Ffl" : U"FFL"; return true;
    case 0xFB05:
    case 0xFB06: out += title ? U"St" : U"ST"; return true;
    default: return false;
    }
}

void append_upper_cp(std::u32string& out, char32_t c) {
    if (!append_full_upper(out, c, false)) out += simple_upper(c);
}

void append_title_cp(std::u32string& out, char32_t c) {
    if (append_full_upper(out, c, true)) return;
    if (in(c, 0x1C4, 0x1C6)) { out += char32_t(0x1C5); return; }
    if (in(c, 0x1C7, 0x1C9)) { out += char32_t(0x1C8); return; }
    if (in(c, 0x1CA, 0x1CC)) { out += char32_t(0x1CB); return; }
    if (in(c, 0x1F1, 0x1F3)) { out += char32_t(0x1F2); return; }
    out += simple_upper(c);
}

// Combining marks and other characters that lower() skips when deciding on a final sigma.
bool case_ignorable(char32_t c) {
    return c == '\'' || c == '.' || c == ':' || c == '^' || c == '`' || c == 0xAD || c == 0xB7 || c == 0x2019 ||
           in(c, 0x300, 0x36F) || in(c, 0x2B0, 0x2FF);
}

// Python's final-sigma rule: capital sigma at the end of a word lowercases to ς.
bool final_sigma(const std::u32string& s, size_t i) {
    size_t j = i;
    bool before = false;
    while (j > 0) {
        const char32_t p = s[--j];
        if (case_ignorable(p)) continue;
        before = py_iscased(p);
        break;
    }
    if (!before) return false;
    for (size_t k = i + 1; k < s.size(); ++k) {
        if (case_ignorable(s[k])) continue;
        return !py_iscased(s[k]);
    }
    return true;
}

void append_lower_at(std::u32string& out, const std::u32string& s, size_t i) {
    const char32_t c = s[i];
    if (c == 0x130) { out += U"i\u0307"; return; }
    if (c == 0x3A3) { out += final_sigma(s, i) ? char32_t(0x3C2) : char32_t(0x3C3); return; }
    out += simple_lower(c);
}

}  // namespace

bool py_isupper_char(char32_t c) { return simple_lower(c) != c && !titlecase_digraph(c); }
bool py_islower_char(char32_t c) { return (simple_upper(c) != c && !titlecase_digraph(c)) || lower_only(c); }
bool py_iscased(char32_t c) { return simple_lower(c) != c || simple_upper(c) != c || lower_only(c); }

std::string py_upper(std::string_view s) {
    if (is_ascii(s)) {
        std::string out(s);
        for (char& c : out)
            if (c >= 'a' && c <= 'z') c = char(c - 32);
        return out;
    }
    std::u32string out;
    for (char32_t c : to_code_points(s)) append_upper_cp(out, c);
    return to_utf8(out);
}

std::string py_lower(std::string_view s) {
    if (is_ascii(s)) {
        std::string out(s);
        for (char& c : out)
            if (c >= 'A' && c <= 'Z') c = char(c + 32);
        return out;
    }
    const std::u32string cps = to_code_points(s);
    std::u32string out;
    for (size_t i = 0; i < cps.size(); ++i) append_lower_at(out, cps, i);
    return to_utf8(out);
}

std::string py_swapcase(std::string_view s) {
    const std::u32string cps = to_code_points(s);
    std::u32string out;
    for (size_t i = 0; i < cps.size(); ++i) {
        if (py_isupper_char(cps[i])) append_lower_at(out, cps, i);
        else if (py_islower_char(cps[i])) append_upper_cp(out, cps[i]);
        else out += cps[i];
    }
    return to_utf8(out);
}

std::string py_title(std::string_view s) {
    const std::u32string cps = to_code_points(s);
    std::u32string out;
    bool previous_cased = false;
    for (size_t i = 0; i < cps.size(); ++i) {
        if (previous_cased) append_lower_at(out, cps, i);
        else append_title_cp(out, cps[i]);
        previous_cased = py_iscased(cps[i]);
    }
    return to_utf8(out);
}

std::string py_capitalize(std::string_view s) {
    const std::u32string cps = to_code_points(s);
    std::u32string out;
    for (size_t i = 0; i < cps.size(); ++i) {
        if (i == 0) append_title_cp(out, cps[i]);
        else append_lower_at(out, cps, i);
    }
    return to_utf8(out);
}


namespace {

// str.isupper() / str.islower(): at least one cased character, and none of the other case (a
// titlecase digraph counts as the other case for both).
bool all_cased_are(std::string_view s, bool (*is_case)(char32_t), bool (*is_other_case)(char32_t)) {
    bool cased = false;
    for (size_t i = 0; i < s.size();) {
        const char32_t c = next_code_point(s, i);
        if (is_other_case(c) || titlecase_digraph(c)) return false;
        if (is_case(c)) cased = true;
    }
    return cased;
}

}  // namespace

bool py_isupper(std::string_view s) { return all_cased_are(s, py_isupper_char, py_islower_char); }

bool py_islower(std::string_view s) { return all_cased_are(s, py_islower_char, py_isupper_char); }

bool py_istitle(std::string_view s) {
    bool cased = false, previous_cased = false;
    for (size_t i = 0; i < s.size();) {
        const char32_t c = next_code_point(s, i);
        if (py_isupper_char(c) || titlecase_digraph(c)) {
            if (previous_cased) return false;
            previous_cased = cased = true;
        } else if (py_islower_char(c)) {
            if (!previous_cased) return false;
            previous_cased = cased = true;
        } else {
            previous_cased = false;
        }
    }
    return cased;
}

}  // namespace folio::jinja
