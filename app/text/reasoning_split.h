#pragma once
// A thinking model's reply as it streams: "<think>reasoning</think>answer" (Qwen3 writes the opening
// tag itself; DeepSeek-R1 distills get it from their template's generation prompt, so their reply
// starts inside the block). Split the way vLLM's reasoning parsers split it: the reasoning apart,
// the answer after </think> with its leading newlines dropped (as the Qwen3 template drops them).
//
// Plain C++ on UTF-8 (no Qt). It stands until the front door's output stage splits reasoning from
// content itself (as vLLM's reasoning parsers do); then the app takes the split from there.
#include <cstdint>
#include <string>
#include <string_view>

namespace folio::text {

struct ReasoningSplit {
    std::string reasoning;       // without the tags and the newlines around it
    std::string answer;
    bool has_reasoning = false;  // a think block was opened (it may be empty: thinking switched off)
    bool thinking = false;       // the block is still open: no </think> yet
    bool operator==(const ReasoningSplit&) const = default;
};

// `raw`: the reply's text so far. A reply that starts with "<think>" (after ASCII whitespace) thinks
// until "</think>"; one with a "</think>" but no opening tag thought from its first token (its
// template opened the block); anything else is all answer. While the reply streams (`complete`
// false), text that could still become "<think>" (it is "<th"), or a partial "</think>" at the end of
// the reasoning, is held back; a complete reply keeps every character.
ReasoningSplit split_reasoning(std::string_view raw, bool complete = false);

// The raw text a split came from, in the form the Qwen3 template writes a turn: a stored reply that is
// continued goes on from here (its reasoning stays closed).
std::string join_reasoning(std::string_view reasoning, bool has_reasoning, std::string_view answer);

// "Thought for 12 s", "Thought for 1 min 5 s", "Thought for less than a second"; "Thoughts" when the
// time is unknown (0).
std::string thought_for(int64_t ms);

}  // namespace folio::text
