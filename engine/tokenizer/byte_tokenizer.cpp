#include "engine/tokenizer/byte_tokenizer.h"

#include <charconv>

#include "engine/core/error.h"
#include "engine/tokenizer/utf8.h"

namespace folio {

ByteTokenizer::ByteTokenizer(int vocab_size) : vocab_size_(vocab_size) {
    if (vocab_size < kMinVocab)
        throw Error("the byte tokenizer needs a vocabulary of at least 259 tokens (3 control + 256 bytes), the model has " +
                    std::to_string(vocab_size));
}

void ByteTokenizer::check_id(int id) const {
    if (id < 0 || id >= vocab_size_)
        throw Error("token id " + std::to_string(id) + " is outside the byte tokenizer's vocabulary of " +
                    std::to_string(vocab_size_));
}

std::vector<int> ByteTokenizer::encode(std::string_view text) const {
    std::vector<int> ids;
    ids.reserve(text.size());
    for (char c : text) ids.push_back(kFirstByte + int(uint8_t(c)));
    return ids;
}

std::string ByteTokenizer::decode(const std::vector<int>& ids) const {
    std::string out, run;
    for (int id : ids) {
        check_id(id);
        if (token_kind(id) == TokenKind::Byte) {
            run.push_back(char(id - kFirstByte));
        } else {
            utf8::drain(run, out, /*final=*/true);  // a control token ends the run of bytes
        }
    }
    utf8::drain(run, out, /*final=*/true);
    return out;
}

std::string ByteTokenizer::token_bytes(int id) const {
    check_id(id);
    if (token_kind(id) == TokenKind::Byte) return std::string(1, char(id - kFirstByte));
    return {};
}

TokenKind ByteTokenizer::token_kind(int id) const {
    check_id(id);
    return id >= kFirstByte && id < kMinVocab ? TokenKind::Byte : TokenKind::Control;
}

std::string ByteTokenizer::piece(int id) const {
    check_id(id);
    if (id == kUnk) return "<unk>";
    if (id == kBos) return "<s>";
    if (id == kEos) return "</s>";
    if (id < kMinVocab) {
        static constexpr char kHex[] = "0123456789ABCDEF";
        const int b = id - kFirstByte;
        return std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">";
    }
    return "<unused_" + std::to_string(id - kMinVocab) + ">";
}

int ByteTokenizer::piece_to_id(std::string_view p) const {
    if (p == "<unk>") return kUnk;
    if (p == "<s>") return kBos;
    if (p == "</s>") return kEos;
    auto number = [&](std::string_view digits, int base) {
        int v = -1;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
        return ec == std::errc() && end == digits.data() + digits.size() && !digits.empty() ? v : -1;
    };
    if (p.size() == 6 && p.substr(0, 3) == "<0x" && p.back() == '>') {
        const std::string_view hex = p.substr(3, 2);
        const bool upper = hex.find_first_of("abcdef") == std::string_view::npos;  // as piece() writes them
        const int b = number(hex, 16);
        return b >= 0 && upper ? kFirstByte + b : -1;
    }
    if (p.size() > 9 && p.substr(0, 8) == "<unused_" && p.back() == '>') {
        const std::string_view digits = p.substr(8, p.size() - 9);
        if (digits.size() > 1 && digits[0] == '0') return -1;  // piece() writes no leading zeros
        const int n = number(digits, 10);
        return n >= 0 && n < vocab_size_ - kMinVocab ? kMinVocab + n : -1;
    }
    return -1;
}

bool ByteTokenizer::is_control(int id) const {
    return id >= 0 && id < vocab_size_ && (id < kFirstByte || id >= kMinVocab);
}

}  // namespace folio
