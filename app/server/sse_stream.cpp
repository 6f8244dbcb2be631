#include "app/server/sse_stream.h"

#include <algorithm>

namespace folio::server {

SseStream::SseStream(ResponseHeader header, int num_choices, bool include_usage)
    : header_(std::move(header)), include_usage_(include_usage), choices_(size_t(std::max(1, num_choices))) {}

bool SseStream::shows(int i, const std::string& text) const { return !text.empty() || !choices_.at(size_t(i)).role_sent; }

std::string SseStream::chunk(int i, const std::string& text, std::optional<FinishReason> finish, const nlohmann::ordered_json& logprobs) {
    auto& c = choices_.at(size_t(i));
    std::string out = sse_event(stream_chunk(header_, i, text, !c.role_sent, finish, include_usage_, logprobs));
    c.role_sent = true;
    return out;
}

std::string SseStream::token(int i, const std::string& text, const nlohmann::ordered_json& logprobs) {
    if (ended_ || choices_.at(size_t(i)).finished || !shows(i, text)) return {};
    return chunk(i, text, std::nullopt, logprobs);
}

std::string SseStream::finish(int i, const std::string& text, FinishReason reason, const Usage& usage,
                              const nlohmann::ordered_json& text_logprobs, const nlohmann::ordered_json& rest_logprobs) {
    if (ended_ || choices_.at(size_t(i)).finished) return {};
    std::string out;
    if (shows(i, text)) out += chunk(i, text, std::nullopt, text_logprobs);
    out += chunk(i, "", reason, rest_logprobs);
    choices_[size_t(i)].finished = true;
    if (std::all_of(choices_.begin(), choices_.end(), [](const ChoiceState& c) { return c.finished; })) {
        if (include_usage_) out += sse_event(usage_chunk(header_, usage));
        out += sse_done();
        ended_ = true;
    }
    return out;
}

std::string SseStream::error(const ApiError& e) {
    if (ended_) return {};
    ended_ = failed_ = true;
    return sse_event(error_body(e)) + sse_done();
}

}  // namespace folio::server
