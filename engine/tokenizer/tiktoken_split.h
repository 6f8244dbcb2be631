#pragma once
// A hand-written matcher for the pre-tokenizer regexes of the GPT-2 / tiktoken family, which PCRE2
// runs at about 25 MB/s (a quarter of the whole budget). It recognizes exactly these patterns (as
// written in tokenizer.json) and follows their backtracking semantics step by step:
//   GPT-2 (the ByteLevel pre-tokenizer's own):
//     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   Llama-3 / cl100k, and Qwen2/Qwen3 (the same with \p{N} instead of \p{N}{1,3}):
//     (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|
//     \s*[\r\n]+|\s+(?!\S)|\s+
// Every character is covered by one of the alternatives, so the matches tile the text. A
// differential test checks it against PCRE2 on random text.
#include <memory>
#include <string>

#include "engine/tokenizer/split_pattern.h"

namespace folio {

inline constexpr std::string_view kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
inline constexpr std::string_view kLlama3Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
    "\\s+(?!\\S)|\\s+";
inline constexpr std::string_view kQwen2Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
    "\\s+(?!\\S)|\\s+";

// The fast matcher for one of the patterns above; nullptr for any other pattern.
std::unique_ptr<SplitPattern> make_tiktoken_split(const std::string& pattern);

}  // namespace folio
