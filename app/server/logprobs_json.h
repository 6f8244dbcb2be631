#pragma once
// The engine's per-token logprobs (TokenLogprobs) in OpenAI's two shapes:
//  chat:        {"content": [{"token", "logprob", "bytes", "top_logprobs": [{"token", "logprob", "bytes"}]}]}
//  completions: {"tokens", "token_logprobs", "top_logprobs": [{token: logprob}], "text_offset"}
// A token's text is its raw bytes (a piece of a UTF-8 character shows as U+FFFD in "token"; "bytes"
// keeps it exact); a log-probability that is -inf (a token the model rules out) is sent as -9999.0,
// as OpenAI does, since JSON has no infinity.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/sampling/token_logprobs.h"
#include "engine/tokenizer/tokenizer.h"

namespace folio::server {

// One chat "content" entry for `token`.
nlohmann::ordered_json chat_logprob_entry(const Tokenizer& tokenizer, int32_t token, const TokenLogprobs& lp);

// A completions logprobs object, grown token by token. `text_offset` is where the next token's text
// starts in the choice's text (bytes), carried across stream chunks by the caller.
struct CompletionLogprobs {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    void add(const Tokenizer& tokenizer, int32_t token, const TokenLogprobs& lp, size_t& text_offset);
    bool empty() const { return object.empty(); }
    // The object so far (its four lists, empty when no token came) and a fresh start.
    nlohmann::ordered_json take();
};

// The text a token contributes (its bytes; a control token's vocabulary entry, e.g. "</s>").
std::string token_text(const Tokenizer& tokenizer, int32_t token);

}  // namespace folio::server
