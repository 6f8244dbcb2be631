#include "app/text/reasoning_split.h"

#include <algorithm>

namespace folio::text {
namespace {

constexpr std::string_view kOpen = "<think>";
constexpr std::string_view kClose = "</think>";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool is_newline(char c) { return c == '\n' || c == '\r'; }

// How many bytes at the end of `s` are a proper prefix of `tag` (a tag still arriving).
size_t partial_tag_at_end(std::string_view s, std::string_view tag) {
    for (size_t n = std::min(s.size(), tag.size() - 1); n > 0; --n) {
        if (s.ends_with(tag.substr(0, n))) return n;
    }
    return 0;
}

std::string trim_newlines(std::string_view s) {
    while (!s.empty() && is_newline(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_newline(s.back())) s.remove_suffix(1);
    return std::string(s);
}

std::string drop_leading_newlines(std::string_view s) {
    while (!s.empty() && is_newline(s.front())) s.remove_prefix(1);
    return std::string(s);
}

}  // namespace

ReasoningSplit split_reasoning(std::string_view raw, bool complete) {
    ReasoningSplit out;
    size_t lead = 0;
    while (lead < raw.size() && is_space(raw[lead])) ++lead;
    const std::string_view rest = raw.substr(lead);
    if (rest.starts_with(kOpen)) {
        out.has_reasoning = true;
        const std::string_view body = rest.substr(kOpen.size());
        const size_t close = body.find(kClose);
        if (close == std::string_view::npos) {
            out.thinking = true;
            out.reasoning = trim_newlines(body.substr(0, body.size() - (complete ? 0 : partial_tag_at_end(body, kClose))));
        } else {
            out.reasoning = trim_newlines(body.substr(0, close));
            out.answer = drop_leading_newlines(body.substr(close + kClose.size()));
        }
        return out;
    }
    if (!complete && !rest.empty() && kOpen.starts_with(rest)) return out;  // "<thi": not known yet
    const size_t close = raw.find(kClose);
    if (close != std::string_view::npos) {  // the template opened the block in the prompt
        out.has_reasoning = true;
        out.reasoning = trim_newlines(raw.substr(0, close));
        out.answer = drop_leading_newlines(raw.substr(close + kClose.size()));
        return out;
    }
    out.answer = std::string(raw);
    return out;
}

std::string join_reasoning(std::string_view reasoning, bool has_reasoning, std::string_view answer) {
    if (!has_reasoning && reasoning.empty()) return std::string(answer);
    std::string out;
    out.reserve(reasoning.size() + answer.size() + 20);
    out.append(kOpen).append("\n").append(reasoning).append("\n").append(kClose).append("\n\n").append(answer);
    return out;
}

std::string thought_for(int64_t ms) {
    if (ms <= 0) return "Thoughts";
    if (ms < 1000) return "Thought for less than a second";
    const int64_t s = (ms + 500) / 1000;
    if (s < 60) return "Thought for " + std::to_string(s) + " s";
    return "Thought for " + std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
}

}  // namespace folio::text
