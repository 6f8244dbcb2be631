#include "engine/sampling/stop_checker.h"

#include <algorithm>

#include "engine/core/error.h"

namespace folio {

StopChecker::StopChecker(const Tokenizer& tokenizer, StopConditions stop, std::vector<int32_t> eos_ids,
                         bool continues_text)
    : detok_(tokenizer, continues_text), stop_(std::move(stop)), eos_ids_(std::move(eos_ids)) {
    // An empty stop string would match before any text; validate() refuses it, here it is inert.
    stop_.stop_strings.erase(std::remove(stop_.stop_strings.begin(), stop_.stop_strings.end(), std::string()),
                             stop_.stop_strings.end());
    for (const auto& s : stop_.stop_strings) longest_stop_ = std::max(longest_stop_, s.size());
}

bool StopChecker::is_end_token(int32_t token) const {
    auto has = [token](const auto& ids) { return std::find(ids.begin(), ids.end(), token) != ids.end(); };
    return has(stop_.stop_token_ids) || (!stop_.ignore_eos && has(eos_ids_));
}

size_t StopChecker::held_suffix_length(const std::string& text) const {
    for (size_t len = std::min(text.size(), longest_stop_ ? longest_stop_ - 1 : 0); len > 0; --len) {
        const std::string_view suffix = std::string_view(text).substr(text.size() - len);
        for (const auto& s : stop_.stop_strings)
            if (s.size() > len && std::string_view(s).substr(0, len) == suffix) return len;
    }
    return 0;
}

StopDecision StopChecker::push(int32_t token) {
    if (finished_) throw Error("stop checker: a token was pushed after the sequence finished");
    ++generated_;
    StopDecision d;
    if (is_end_token(token)) {
        d.text = std::move(held_) + detok_.finish();
        held_.clear();
        d.finished = true;
        d.reason = FinishReason::Eos;
        finished_ = true;
        return d;
    }

    std::string text = std::move(held_) + detok_.push(token);
    held_.clear();
    // The earliest stop string wins. held_ never contains a whole one, so a match ends in the new text.
    size_t match = std::string::npos;
    for (const auto& s : stop_.stop_strings) {
        const size_t pos = text.find(s);
        if (pos < match) match = pos;
    }
    if (match != std::string::npos) {
        text.resize(match);
        d.text = std::move(text);
        d.finished = true;
        d.reason = FinishReason::StopString;
        finished_ = true;
        return d;
    }
    if (generated_ >= stop_.max_tokens) {
        d.text = std::move(text) + detok_.finish();
        d.finished = true;
        d.reason = FinishReason::Length;
        finished_ = true;
        return d;
    }
    const size_t hold = held_suffix_length(text);
    held_ = text.substr(text.size() - hold);
    text.resize(text.size() - hold);
    d.text = std::move(text);
    return d;
}

std::string StopChecker::finish() {
    std::string out = std::move(held_) + (finished_ ? std::string() : detok_.finish());
    held_.clear();
    finished_ = true;
    return out;
}

}  // namespace folio
