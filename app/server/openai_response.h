#pragma once
// The JSON Folio answers with, in the shapes of OpenAI's API: whole responses, stream chunks (as SSE
// events) and usage. Plain functions of their inputs.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/server/openai_request.h"
#include "engine/sampling/finish_reason.h"

namespace folio::server {

struct Usage {
    int prompt_tokens = 0;
    int completion_tokens = 0;
    int cached_prompt_tokens = 0;  // prompt tokens served from the prefix cache
};

// Identity of one response, shared by all its chunks.
struct ResponseHeader {
    Endpoint endpoint = Endpoint::ChatCompletions;
    std::string id;       // "chatcmpl-…" / "cmpl-…"
    int64_t created = 0;  // Unix seconds
    std::string model;
};

// "stop" for an end token or a stop string, "length" for max_tokens or the context's end.
const char* openai_finish_reason(FinishReason r);

nlohmann::ordered_json usage_json(const Usage& u);

struct Choice {
    std::string text;
    FinishReason reason = FinishReason::Eos;
    nlohmann::ordered_json logprobs;  // null, or the choice's logprobs object (logprobs_json.h)
};

// The whole (non-streaming) response, choices in index order.
nlohmann::ordered_json full_response(const ResponseHeader& h, const std::vector<Choice>& choices, const Usage& usage);

// One stream chunk. Chat: `role_first` puts {"role": "assistant"} in the delta (the first chunk);
// `finish` closes the choice (its delta is empty for chat). `usage_null`: include_usage was asked,
// so every choice chunk carries "usage": null.
// `logprobs`: null, or the logprobs object of the tokens this chunk carries.
nlohmann::ordered_json stream_chunk(const ResponseHeader& h, int index, const std::string& text, bool role_first,
                            std::optional<FinishReason> finish, bool usage_null,
                            const nlohmann::ordered_json& logprobs = nullptr);
// The extra chunk with include_usage: no choices, the usage.
nlohmann::ordered_json usage_chunk(const ResponseHeader& h, const Usage& usage);

// One server-sent event carrying `j`, and the stream's end marker.
std::string sse_event(const nlohmann::ordered_json& j);
inline const char* sse_done() { return "data: [DONE]\n\n"; }

// JSON text; invalid UTF-8 (never expected from the detokenizer) becomes U+FFFD instead of throwing.
std::string dump(const nlohmann::ordered_json& j);

}  // namespace folio::server
