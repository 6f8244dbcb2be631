#pragma once
// Patterns that cut a text into segments, as the Hugging Face tokenizers library's Pattern trait
// does for Split, Replace, Metaspace and Digits: consecutive segments [start, end) covering the text,
// each a match of the pattern or the text between two matches. Regexes are written for Oniguruma
// (the Rust library's engine); they run on PCRE2 with JIT after the escapes whose meaning differs are
// rewritten (\s is White_Space, \d is Nd, \w Oniguruma's word class, \h a hex digit), except the
// pre-tokenizer regexes of GPT-2, Llama-3 and Qwen, which a hand-written matcher recognizes and runs
// many times faster with the same result (tiktoken_split.h).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace folio {

class SegmentSink {
public:
    virtual void segment(size_t start, size_t end, bool is_match) = 0;

protected:
    ~SegmentSink() = default;
};

class SplitPattern {
public:
    virtual ~SplitPattern() = default;
    // Calls sink.segment for consecutive segments covering `text` (valid UTF-8), in order. An empty
    // text has no segments.
    virtual void find_segments(std::string_view text, SegmentSink& sink) const = 0;
};

// The literal text (an empty literal matches nothing).
std::unique_ptr<SplitPattern> make_literal_pattern(std::string literal);
// Every single occurrence of the character c is one match.
std::unique_ptr<SplitPattern> make_char_pattern(char32_t c);
// Every single character for which `is_match` holds is one match.
std::unique_ptr<SplitPattern> make_char_class_pattern(bool (*is_match)(char32_t));
// An Oniguruma regex: the fast matcher when it recognizes the pattern, otherwise PCRE2. Throws
// folio::Error naming the pattern and PCRE2's complaint when it does not compile.
std::unique_ptr<SplitPattern> make_regex_pattern(const std::string& onig_regex);
// Always PCRE2 (the fast matcher is tested against this).
std::unique_ptr<SplitPattern> make_pcre2_pattern(const std::string& onig_regex);
// The PCRE2 spelling of an Oniguruma regex (exposed for tests).
std::string onig_to_pcre2(const std::string& onig_regex);

}  // namespace folio
