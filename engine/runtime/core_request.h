#pragma once
// What the engine core is asked and what it answers: token ids and generation limits in, token ids
// and finish reasons out. No text: templates, tokenizing, detokenizing and stop strings are the front
// door's (engine/frontdoor), so nothing here can make a step wait for them.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/sampling/finish_reason.h"
#include "engine/sampling/sampling_params.h"
#include "engine/sampling/token_logprobs.h"

namespace folio {

using RequestId = uint64_t;

struct CoreRequest {
    std::vector<int32_t> prompt_ids;  // not empty; every id inside the model's vocabulary
    SamplingParams sampling;
    int max_tokens = 256;                 // generated tokens at most (>= 1)
    std::vector<int32_t> eos_token_ids;   // the model's end ids (Model::stop_token_ids()); ignored with ignore_eos
    std::vector<int32_t> stop_token_ids;  // further ids that end the request, even with ignore_eos
    bool ignore_eos = false;              // benchmarks: generate max_tokens whatever the model samples
    int priority = 0;  // higher is admitted first among waiting requests; ties: arrival order
    std::string tag;   // the caller's own label (e.g. a conversation id), echoed in stats
    // Replies to this prompt (1..kMaxReplies), with ids id .. id + n - 1 (the caller keeps them free).
    // The prompt is admitted and prefilled once; its logits give each reply its first token (reply
    // i drawn with seed + i, so it equals a request of its own with that seed), and the replies then
    // go on as sequences of their own that share the prompt's KV blocks (copy-on-write). Cancelling
    // id cancels them all; each other id ends alone.
    int n = 1;
    // When the caller submitted it (before the front door's work): queue time and time to first
    // token count from here. Unset (the epoch): when the core gets it.
    std::chrono::steady_clock::time_point arrival{};
};

inline constexpr int kMaxReplies = 64;

struct RequestTimings {
    int prompt_tokens = 0;
    int cached_prompt_tokens = 0;  // prompt tokens served from the prefix cache
    int generated_tokens = 0;
    double input_ms = 0;       // submit to handed to the core: the front door's queue and work (template, tokens)
    double queue_ms = 0;       // submit to first scheduled (input_ms included)
    double ttft_ms = 0;        // submit to first token
    double prefill_tok_s = 0;  // prompt tokens / (first token - first scheduled)
    double decode_tok_s = 0;   // (generated - 1) / (last token - first token)
    int preemptions = 0;
};

// One step's news about one request: the token it sampled, and whether the request ended there.
// A request ends exactly once: with its last token (Eos: that token was an end id; Length;
// ContextFull: nothing can follow it), or without a token (Cancelled, Error, ContextFull when the
// whole KV pool cannot hold it, and rejections at add()).
struct CoreEvent {
    RequestId id = 0;
    int32_t token = -1;      // the token sampled, or -1
    bool finished = false;
    FinishReason reason = FinishReason::Length;  // when finished: Eos, Length, ContextFull, Cancelled or Error
    std::optional<TokenLogprobs> logprobs;  // with a token, when the request's sampling asks for logprobs
    std::string message;     // when finished: what went wrong (Error), or why it ended early, for the user
    RequestTimings timings;  // as of this event
    std::vector<int32_t> prompt_ids;  // when finished: the prompt the core ran (for dumps and tests)
};

}  // namespace folio
