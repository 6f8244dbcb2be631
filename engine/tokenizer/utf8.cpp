#include "engine/tokenizer/utf8.h"

#include <cstdint>

namespace folio::utf8 {

int classify(std::string_view s) {
    const auto b0 = uint8_t(s[0]);
    if (b0 < 0x80) return 1;
    int len = 0;
    uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        if (b0 == 0xE0) lo = 0xA0;  // overlong
        if (b0 == 0xED) hi = 0x9F;  // surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        if (b0 == 0xF0) lo = 0x90;  // overlong
        if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
        return -1;  // ASCII-range continuation bytes, C0/C1, F5..FF
    }
    const int have = int(s.size()) < len ? int(s.size()) : len;
    for (int i = 1; i < have; ++i) {
        const auto b = uint8_t(s[size_t(i)]);
        if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return -1;
    }
    return have < len ? 0 : len;
}

void drain(std::string& pending, std::string& out, bool final) {
    size_t pos = 0;
    while (pos < pending.size()) {
        const int c = classify(std::string_view(pending).substr(pos));
        if (c > 0) {
            out.append(pending, pos, size_t(c));
            pos += size_t(c);
        } else if (c < 0 || final) {
            out.append(kReplacement);
            ++pos;
        } else {
            break;  // an incomplete character: wait for more bytes
        }
    }
    pending.erase(0, pos);
}

bool is_valid(std::string_view s) {
    size_t pos = 0;
    while (pos < s.size()) {
        const int c = classify(s.substr(pos));
        if (c <= 0) return false;
        pos += size_t(c);
    }
    return true;
}

}  // namespace folio::utf8
