#include "engine/tokenizer/split_pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "engine/core/error.h"
#include "engine/tokenizer/tiktoken_split.h"
#include "engine/tokenizer/unicode_text.h"

namespace folio {
namespace {

class LiteralPattern final : public SplitPattern {
public:
    explicit LiteralPattern(std::string literal) : literal_(std::move(literal)) {}
    void find_segments(std::string_view text, SegmentSink& sink) const override {
        if (text.empty()) return;
        if (literal_.empty()) {
            sink.segment(0, text.size(), false);
            return;
        }
        size_t prev = 0;
        for (size_t pos = text.find(literal_); pos != std::string_view::npos; pos = text.find(literal_, prev)) {
            if (pos > prev) sink.segment(prev, pos, false);
            sink.segment(pos, pos + literal_.size(), true);
            prev = pos + literal_.size();
        }
        if (prev < text.size()) sink.segment(prev, text.size(), false);
    }

private:
    std::string literal_;
};

// The Rust library's Pattern for a char predicate: each matching character alone, the runs between.
template <typename Pred>
void char_segments(std::string_view text, SegmentSink& sink, Pred is_match) {
    size_t last = 0;
    for (size_t i = 0; i < text.size();) {
        size_t len = 0;
        const char32_t c = unicode::decode_at(text, i, len);
        if (is_match(c)) {
            if (last < i) sink.segment(last, i, false);
            sink.segment(i, i + len, true);
            last = i + len;
        }
        i += len;
    }
    if (last < text.size()) sink.segment(last, text.size(), false);
}

class CharPattern final : public SplitPattern {
public:
    explicit CharPattern(char32_t c) : c_(c) {}
    void find_segments(std::string_view text, SegmentSink& sink) const override {
        char_segments(text, sink, [this](char32_t c) { return c == c_; });
    }

private:
    char32_t c_;
};

class CharClassPattern final : public SplitPattern {
public:
    explicit CharClassPattern(bool (*pred)(char32_t)) : pred_(pred) {}
    void find_segments(std::string_view text, SegmentSink& sink) const override { char_segments(text, sink, pred_); }

private:
    bool (*pred_)(char32_t);
};

std::string pcre2_message(int code) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(code, buf, sizeof buf);
    return reinterpret_cast<const char*>(buf);
}

class Pcre2Pattern final : public SplitPattern {
public:
    explicit Pcre2Pattern(const std::string& onig) : source_(onig) {
        const std::string pattern = onig_to_pcre2(onig);
        int code = 0;
        PCRE2_SIZE offset = 0;
        re_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                            PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE, &code, &offset, nullptr);
        if (!re_)
            throw Error("the regex \"" + onig + "\" does not compile (" + pcre2_message(code) + " at offset " +
                        std::to_string(offset) + " of its PCRE2 form \"" + pattern + "\")");
        jit_ = pcre2_jit_compile(re_, PCRE2_JIT_COMPLETE) == 0;
    }
    ~Pcre2Pattern() override { pcre2_code_free(re_); }
    Pcre2Pattern(const Pcre2Pattern&) = delete;
    Pcre2Pattern& operator=(const Pcre2Pattern&) = delete;

    // The matches of the Oniguruma crate's find_iter: leftmost-first, and an empty match right where
    // the previous match ended is skipped (the search moves on one character).
    void find_segments(std::string_view text, SegmentSink& sink) const override {
        if (text.empty()) return;
        pcre2_match_data* md = pcre2_match_data_create_from_pattern(re_, nullptr);
        const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
        size_t pos = 0, prev = 0, last_end = size_t(-1);
        while (pos <= text.size()) {
            const int rc = jit_ ? pcre2_jit_match(re_, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md, nullptr)
                                : pcre2_match(re_, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md, nullptr);
            if (rc == PCRE2_ERROR_NOMATCH) break;
            if (rc < 0) {
                pcre2_match_data_free(md);
                throw Error("the regex \"" + source_ + "\" failed on the text: " + pcre2_message(rc));
            }
            const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
            const size_t start = ov[0], end = ov[1];
            if (start == end && start == last_end) {
                if (start >= text.size()) break;
                pos = start + unicode::sequence_length(uint8_t(text[start]));
                continue;
            }
            if (start > prev) sink.segment(prev, start, false);
            sink.segment(start, end, true);
            prev = end;
            last_end = end;
            if (end > start) {
                pos = end;
            } else {
                if (end >= text.size()) break;
                pos = end + unicode::sequence_length(uint8_t(text[end]));
            }
        }
        pcre2_match_data_free(md);
        if (prev < text.size()) sink.segment(prev, text.size(), false);
    }

private:
    std::string source_;
    pcre2_code* re_ = nullptr;
    bool jit_ = false;
};

constexpr std::string_view kOnigWordInClass = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}";
// Outside a class Oniguruma's \w also takes the Latin-1 superscripts and fractions.
constexpr std::string_view kOnigWordExtra = "\\x{B2}\\x{B3}\\x{B9}\\x{BC}-\\x{BE}";

}  // namespace

std::string onig_to_pcre2(const std::string& p) {
    std::string out;
    out.reserve(p.size() + 16);
    bool in_class = false;
    size_t class_start = 0;  // index just after '[' or '[^'
    for (size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\' && i + 1 < p.size()) {
            const char e = p[++i];
            switch (e) {
                case 's': out += "\\p{White_Space}"; break;
                case 'S': out += "\\P{White_Space}"; break;
                case 'd': out += "\\p{Nd}"; break;
                case 'D': out += "\\P{Nd}"; break;
                case 'w':
                    if (in_class) out += kOnigWordInClass;
                    else out.append("[").append(kOnigWordInClass).append(kOnigWordExtra).append("]");
                    break;
                case 'W':
                    if (in_class) out += "\\W";
                    else out.append("[^").append(kOnigWordInClass).append(kOnigWordExtra).append("]");
                    break;
                case 'h': out += in_class ? "0-9A-Fa-f" : "[0-9A-Fa-f]"; break;
                case 'H': out += in_class ? "\\H" : "[^0-9A-Fa-f]"; break;
                case 'u':
                    if (i + 4 < p.size() && p.find_first_not_of("0123456789abcdefABCDEF", i + 1) >= i + 5) {
                        out.append("\\x{").append(p, i + 1, 4).append("}");
                        i += 4;
                    } else {
                        out.append("\\u");
                    }
                    break;
                default: out.push_back('\\'); out.push_back(e); break;
            }
            continue;
        }
        if (!in_class && c == '[') {
            in_class = true;
            out.push_back(c);
            class_start = i + 1;
            if (i + 1 < p.size() && p[i + 1] == '^') {
                out.push_back('^');
                ++i;
                class_start = i + 1;
            }
            continue;
        }
        if (in_class && c == ']' && i != class_start) in_class = false;
        out.push_back(c);
    }
    return out;
}

std::unique_ptr<SplitPattern> make_literal_pattern(std::string literal) {
    return std::make_unique<LiteralPattern>(std::move(literal));
}
std::unique_ptr<SplitPattern> make_char_pattern(char32_t c) { return std::make_unique<CharPattern>(c); }
std::unique_ptr<SplitPattern> make_char_class_pattern(bool (*is_match)(char32_t)) {
    return std::make_unique<CharClassPattern>(is_match);
}
std::unique_ptr<SplitPattern> make_pcre2_pattern(const std::string& onig_regex) {
    return std::make_unique<Pcre2Pattern>(onig_regex);
}
std::unique_ptr<SplitPattern> make_regex_pattern(const std::string& onig_regex) {
    if (auto fast = make_tiktoken_split(onig_regex)) return fast;
    return make_pcre2_pattern(onig_regex);
}

}  // namespace folio
