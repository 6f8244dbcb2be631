#pragma once
// What a caller asks of the engine, and what comes back: requests with text (chat messages, raw
// text or ids) in, events with text out. Plain data shared by the threaded Engine, SyncEngine, the
// CLI, the benchmark and the Qt bridge. The front door turns a Request into the core's CoreRequest
// (engine/runtime/core_request.h) and the core's CoreEvents into Events.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/chat/chat_message.h"
#include "engine/runtime/core_request.h"
#include "engine/sampling/finish_reason.h"
#include "engine/sampling/sampling_params.h"
#include "engine/sampling/token_logprobs.h"

namespace folio {

struct Request {
    // Exactly one of these three is the prompt: ids (used as given), chat messages (rendered with the
    // model's chat template, generation prompt added), or raw text (BOS per tokenizer_config). Raw
    // text may be empty: the prompt is then BOS alone, as transformers and llama.cpp generate from.
    std::vector<int32_t> prompt_ids;
    std::vector<ChatMessage> messages;
    std::optional<std::string> prompt_text;
    // Chat messages only: the last message is an assistant reply to go on with (one that was stopped
    // or hit max_tokens), as transformers' continue_final_message does. The template is rendered
    // without a generation prompt and cut right after that message's content, so no end-of-turn
    // follows it, and the generated text is its continuation (no leading-space rule on the first token).
    bool continue_final_message = false;
    // Chat messages only: further variables for the chat template (vLLM's chat_template_kwargs,
    // transformers' apply_chat_template keyword arguments), a JSON object such as
    // {"enable_thinking": false}. The names the engine sets itself are refused (chat_prompt.h).
    nlohmann::ordered_json chat_template_kwargs = nlohmann::ordered_json::object();

    SamplingParams sampling;
    StopConditions stop;
    int priority = 0;     // higher is admitted first among waiting requests; ties: arrival order
    std::string tag;      // the caller's own label (e.g. a conversation id), echoed in stats
    // Replies to this one prompt (1..kMaxReplies): submit hands out the first id and the replies have
    // ids id .. id + n - 1, each with its own events. The prompt is prefilled once and the replies
    // share its KV blocks; reply i samples with seed + i (CoreRequest::n). Cancelling the first id
    // cancels them all.
    int n = 1;
};

// The ids a request takes: n for a valid n, else 1 (the request is refused with one Error event).
inline int num_reply_ids(const Request& r) { return r.n >= 1 && r.n <= kMaxReplies ? r.n : 1; }

// Greedy decoding of exactly `max_tokens` tokens (EOS ignored): a request whose work and output
// depend only on the prompt and the model, as benchmarks and reproducibility tests want.
Request fixed_length_greedy_request(std::vector<int32_t> prompt_ids, int max_tokens);

struct Event {
    enum class Kind { Token, Finished, Error };
    Kind kind = Kind::Token;
    RequestId id = 0;
    // Token: the sampled id and the text it completes (may be empty while a UTF-8 character or a
    // possible stop string is incomplete). Every sampled id comes as a Token event, an EOS id too
    // (with no text of its own), up to the one that completes a stop string; ids the core sampled
    // after that one never come.
    // Finished/Error: text held back until the end (the tail of a possible stop string that turned
    // out not to be one, an unfinished character as U+FFFD), to append; usually empty.
    int32_t token = -1;
    std::string text;
    // Token, when the request's sampling asks for logprobs: the token's and its best alternatives'.
    std::optional<TokenLogprobs> logprobs;
    // Finished/Error:
    FinishReason reason = FinishReason::Eos;
    std::string message;      // Error: what went wrong, for the user
    RequestTimings timings;   // Finished (and Error after admission)
    std::vector<int32_t> prompt_ids;  // Finished: the prompt as tokenized (for dumps and tests)
};

}  // namespace folio
