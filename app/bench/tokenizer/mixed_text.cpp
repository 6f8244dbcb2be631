#include "app/bench/tokenizer/mixed_text.h"

#include <array>
#include <string_view>
#include <vector>

namespace folio::bench {
namespace {

struct Rng {  // xorshift64*: fixed across platforms, unlike <random>'s distributions
    uint64_t s;
    uint64_t next() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 0x2545F4914F6CDD1Dull;
    }
    size_t below(size_t n) { return size_t(next() % n); }
};

template <size_t N>
std::string_view pick(Rng& r, const std::array<std::string_view, N>& words) { return words[r.below(N)]; }

constexpr std::array<std::string_view, 64> kEnglish = {
    "the", "of", "and", "to", "in", "is", "was", "that", "for", "it", "with", "as", "on", "be", "at", "by",
    "this", "had", "not", "are", "but", "from", "or", "have", "an", "they", "which", "one", "you", "were", "her",
    "all", "she", "there", "would", "their", "we", "him", "been", "has", "when", "who", "will", "more", "no", "if",
    "out", "so", "said", "what", "up", "its", "about", "into", "than", "them", "can", "only", "other", "new",
    "tokenizer", "performance", "measurement", "doesn't"};
constexpr std::array<std::string_view, 12> kRussian = {
    "Привет", "мир", "это", "русский", "текст", "который", "содержит", "много", "слов", "и", "предложений", "быстро"};
constexpr std::array<std::string_view, 10> kCjk = {"中文", "文本", "混合", "测试", "我们", "今天天气很好", "日本語",
                                                   "のテキスト", "東京", "速度"};
constexpr std::array<std::string_view, 8> kArabic = {"العربية", "من", "اليمين", "إلى", "اليسار", "هذا", "نص", "طويل"};
constexpr std::array<std::string_view, 6> kGreek = {"Ελληνικά", "και", "κείμενο", "με", "πολλές", "λέξεις"};
constexpr std::array<std::string_view, 6> kHindi = {"हिन्दी", "में", "लिखा", "गया", "पाठ", "है"};
constexpr std::array<std::string_view, 6> kKorean = {"한국어", "문장입니다", "빠른", "토큰화", "테스트", "입니다"};
constexpr std::array<std::string_view, 10> kEmoji = {"🦙", "🔥", "👍🏽", "🇫🇷", "👩‍💻", "😀", "🎉", "❤️", "👨‍👩‍👧", "✨"};
constexpr std::array<std::string_view, 8> kCode = {
    "def f(x):\n    return x ** 2  # square\n", "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n",
    "if err != nil {\n        return nil, err\n}\n", "const total = items.reduce((a, b) => a + b, 0);\n",
    "<div class=\"x\">&amp;</div>\n", "{\"key\": [1, 2, 3], \"nested\": {\"a\": null}}\n",
    "SELECT id, name FROM users WHERE age >= 21;\n", "    self.cache[key] = value\r\n"};
constexpr std::array<std::string_view, 8> kSpaces = {"  ", "   ", "\t", "\n", "\n\n", "\r\n", "    \n", " \t "};
constexpr std::array<std::string_view, 6> kPunct = {". ", ", ", "! ", "? ", "; ", ": "};

void words(Rng& r, std::string& out, auto&& list, std::string_view sep, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (i) out += sep;
        out += pick(r, list);
    }
}

}  // namespace

std::string mixed_text(size_t bytes, uint64_t seed) {
    Rng r{seed * 2654435761u + 1};
    std::string out;
    out.reserve(bytes + 256);
    while (out.size() < bytes) {
        const size_t k = r.below(100);
        if (k < 40) {  // English sentence
            std::string s;
            words(r, s, kEnglish, " ", 4 + r.below(14));
            s[0] = char(s[0] >= 'a' && s[0] <= 'z' ? s[0] - 32 : s[0]);
            out += s;
            out += pick(r, kPunct);
        } else if (k < 52) {
            out += pick(r, kCode);
        } else if (k < 60) {
            words(r, out, kCjk, "", 3 + r.below(10));
            out += "。";
        } else if (k < 67) {
            words(r, out, kRussian, " ", 3 + r.below(10));
            out += pick(r, kPunct);
        } else if (k < 72) {
            words(r, out, kArabic, " ", 3 + r.below(8));
            out += ". ";
        } else if (k < 75) {
            words(r, out, kGreek, " ", 3 + r.below(6));
            out += ". ";
        } else if (k < 78) {
            words(r, out, kHindi, " ", 3 + r.below(6));
            out += "। ";
        } else if (k < 81) {
            words(r, out, kKorean, " ", 3 + r.below(6));
            out += ". ";
        } else if (k < 85) {
            words(r, out, kEmoji, r.below(2) ? " " : "", 1 + r.below(4));
            out += " ";
        } else if (k < 93) {  // numbers: integers, decimals, dates, long digit runs
            switch (r.below(4)) {
                case 0: out += std::to_string(r.below(100000)); break;
                case 1: out += std::to_string(r.below(1000)) + "." + std::to_string(r.below(100000)); break;
                case 2: out += "2026-" + std::to_string(1 + r.below(12)) + "-" + std::to_string(1 + r.below(28)); break;
                default: out += std::to_string(r.next()); break;
            }
            out += " ";
        } else {
            out += pick(r, kSpaces);
        }
    }
    out.resize(bytes);
    // Do not end inside a character.
    size_t lead = out.size();
    while (lead > 0 && (uint8_t(out[lead - 1]) & 0xC0) == 0x80) --lead;
    if (lead > 0) {
        const auto b = uint8_t(out[lead - 1]);
        const size_t len = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
        if (lead - 1 + len > out.size()) out.resize(lead - 1);
    }
    return out;
}

}  // namespace folio::bench
