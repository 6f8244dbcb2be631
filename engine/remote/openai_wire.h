#pragma once
// The OpenAI wire format as a client sends and reads it: a Request becomes a streaming
// chat/completions body (chat messages) or completions body (raw text or ids); each streamed chunk
// becomes its text, finish reason and usage; an error body becomes a message a user can act on.
#include <optional>
#include <string>
#include <vector>

#include "engine/frontdoor/request.h"
#include "engine/sampling/finish_reason.h"

namespace folio::remote {

struct WireRequest {
    std::string path;  // "/chat/completions" or "/completions", below the base URL's /v1
    std::string body;  // JSON
};

// Throws folio::Error for what the API cannot carry (continue_final_message, stop token ids, logprobs
// as yet). Request::n > 1 is sent as the API's n: the replies come as choices 0..n-1 of one stream.
WireRequest to_wire(const Request& request, const std::string& model);

struct WireChoice {
    int index = 0;          // which of the n replies
    bool has_text = false;  // delta.content (chat) or text (completions)
    std::string text;
    std::optional<FinishReason> finish;  // "length" -> Length, "stop" (EOS or a stop string) -> Eos, others -> Error
    std::string finish_name;             // as the server wrote it
};

struct WireChunk {
    std::vector<WireChoice> choices;  // as the chunk lists them (vLLM sends one per chunk)
    bool has_usage = false;
    int prompt_tokens = 0;
    int cached_prompt_tokens = 0;
    int completion_tokens = 0;
    std::string error;  // an {"error": ...} object sent inside the stream
};

// Throws folio::Error when the payload is not JSON.
WireChunk parse_chunk(const std::string& payload);

// The message of an OpenAI-style error body ({"error": {"message": ...}}), or the body itself
// (trimmed, capped) when it is not one.
std::string error_message_of(const std::string& body);

}  // namespace folio::remote
