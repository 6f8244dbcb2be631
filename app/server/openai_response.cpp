#include "app/server/openai_response.h"

namespace folio::server {

using json = nlohmann::ordered_json;

const char* openai_finish_reason(FinishReason r) {
    switch (r) {
        case FinishReason::Eos:
        case FinishReason::StopString: return "stop";
        case FinishReason::Length:
        case FinishReason::ContextFull: return "length";
        case FinishReason::Cancelled: return "cancelled";
        case FinishReason::Error: return "error";
    }
    return "stop";
}

json usage_json(const Usage& u) {
    return {{"prompt_tokens", u.prompt_tokens},
            {"completion_tokens", u.completion_tokens},
            {"total_tokens", u.prompt_tokens + u.completion_tokens},
            {"prompt_tokens_details", {{"cached_tokens", u.cached_prompt_tokens}}}};
}

namespace {

json header_json(const ResponseHeader& h, bool chunk) {
    const bool chat = h.endpoint == Endpoint::ChatCompletions;
    return {{"id", h.id},
            {"object", chat ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion"},
            {"created", h.created},
            {"model", h.model}};
}

}  // namespace

json full_response(const ResponseHeader& h, const std::vector<Choice>& choices, const Usage& usage) {
    json j = header_json(h, false);
    j["choices"] = json::array();
    for (size_t i = 0; i < choices.size(); ++i) {
        json choice = {{"index", i}};
        if (h.endpoint == Endpoint::ChatCompletions)
            choice["message"] = {{"role", "assistant"}, {"content", choices[i].text}};
        else
            choice["text"] = choices[i].text;
        choice["logprobs"] = choices[i].logprobs;
        choice["finish_reason"] = openai_finish_reason(choices[i].reason);
        j["choices"].push_back(choice);
    }
    j["usage"] = usage_json(usage);
    return j;
}

json stream_chunk(const ResponseHeader& h, int index, const std::string& text, bool role_first, std::optional<FinishReason> finish,
                  bool usage_null, const json& logprobs) {
    json j = header_json(h, true);
    json choice = {{"index", index}};
    if (h.endpoint == Endpoint::ChatCompletions) {
        json delta = json::object();
        if (role_first) delta["role"] = "assistant";
        if (!text.empty() || (role_first && !finish)) delta["content"] = text;
        choice["delta"] = delta;
    } else {
        choice["text"] = text;
    }
    choice["logprobs"] = logprobs;
    choice["finish_reason"] = finish ? json(openai_finish_reason(*finish)) : json(nullptr);
    j["choices"] = json::array({choice});
    if (usage_null) j["usage"] = nullptr;
    return j;
}

json usage_chunk(const ResponseHeader& h, const Usage& usage) {
    json j = header_json(h, true);
    j["choices"] = json::array();
    j["usage"] = usage_json(usage);
    return j;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string sse_event(const json& j) { return "data: " + dump(j) + "\n\n"; }

}  // namespace folio::server
