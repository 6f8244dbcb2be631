#pragma once
// The body of POST /v1/chat/completions and /v1/completions, checked and turned into an engine
// Request. Pure: no engine, no sockets, so the HTTP-request fuzz target and the unit test drive it
// directly. Every refusal is an ApiError (400) naming the field at fault; fields Folio cannot honour
// (tools, logit_bias, echo, ...) are refused by name rather than silently ignored.
#include <optional>
#include <string>
#include <string_view>

#include "app/server/api_error.h"
#include "engine/frontdoor/request.h"
#include "engine/model/model.h"

namespace folio::server {

enum class Endpoint { ChatCompletions, Completions };

struct ApiRequest {
    Endpoint endpoint = Endpoint::ChatCompletions;
    std::string model;            // as asked; empty when the request named none
    Request request;              // prompt (messages, prompt_text or prompt_ids), sampling, stop strings
    std::optional<int> max_tokens;  // unset: as many as the context leaves
    int n = 1;                    // choices: one engine request with n replies (see ApiRequests::submit)
    bool stream = false;
    bool include_usage = false;   // stream_options.include_usage
};

// Largest body field values accepted (a bound on work, not a model limit).
inline constexpr int kMaxStopStrings = 16;
inline constexpr size_t kMaxStopStringBytes = 1024;
inline constexpr int kMaxChoices = 16;

// `defaults`: the checkpoint's generation_config.json, applied to the fields a request leaves out
// (as vLLM does); OpenAI's own defaults (temperature 1, top_p 1) otherwise. Throws ApiError.
ApiRequest parse_api_request(std::string_view body, Endpoint endpoint, const GenerationDefaults& defaults);

// Parses a JSON body; ApiError 400 with the parser's position on malformed JSON (invalid UTF-8
// included), or when the body is not an object.
nlohmann::json parse_json_object(std::string_view body);

}  // namespace folio::server
