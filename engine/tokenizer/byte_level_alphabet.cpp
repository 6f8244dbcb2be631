#include "engine/tokenizer/byte_level_alphabet.h"

#include "engine/tokenizer/unicode_text.h"

namespace folio::byte_level {
namespace {

constexpr bool shown_as_itself(int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); }

struct Tables {
    std::array<char32_t, 256> chars{};
    std::array<std::string, 256> utf8;
    std::array<int16_t, 0x144> bytes{};  // indexed by code point
    Tables() {
        int next = 0;
        for (int b = 0; b < 256; ++b) chars[size_t(b)] = shown_as_itself(b) ? char32_t(b) : char32_t(0x100 + next++);
        bytes.fill(-1);
        for (int b = 0; b < 256; ++b) {
            bytes[chars[size_t(b)]] = int16_t(b);
            unicode::append_utf8(utf8[size_t(b)], chars[size_t(b)]);
        }
    }
};

// Immutable after construction; shared by every tokenizer.
const Tables& tables() {
    static const Tables t;
    return t;
}

}  // namespace

char32_t char_of(uint8_t b) { return tables().chars[b]; }
const std::array<std::string, 256>& utf8_of_bytes() { return tables().utf8; }
int byte_of(char32_t c) { return c < 0x144 ? tables().bytes[c] : -1; }

void append_mapped(std::string_view bytes, std::string& out) {
    const auto& u = tables().utf8;
    for (char b : bytes) out.append(u[uint8_t(b)]);
}

bool unmap(std::string_view text, std::string& out) {
    out.clear();
    const auto& t = tables();
    for (size_t i = 0; i < text.size();) {
        const auto b = uint8_t(text[i]);
        if (b < 0x80) {
            if (t.bytes[b] < 0) return false;
            out.push_back(char(b));
            ++i;
            continue;
        }
        if (unicode::valid_char_length(text.substr(i)) == 0) return false;
        size_t len = 0;
        const char32_t c = unicode::decode_at(text, i, len);
        const int byte = byte_of(c);
        if (byte < 0) return false;
        out.push_back(char(byte));
        i += len;
    }
    return true;
}

}  // namespace folio::byte_level
