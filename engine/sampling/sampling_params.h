#pragma once
// Per-request sampling settings and stop conditions. Plain data: the sampler and the stop checker
// read them, the scheduler carries them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace folio {

struct SamplingParams {
    float temperature = 1.0f;         // 0 (or below 1e-5): greedy, argmax with the lowest id on ties
    int top_k = 0;                    // 0: off
    float top_p = 1.0f;               // 1: off
    float min_p = 0.0f;               // 0: off; keeps tokens with p >= min_p * p_max
    float repetition_penalty = 1.0f;  // HF style, over prompt and generated ids: logit/p if >0 else logit*p
    float presence_penalty = 0.0f;    // OpenAI style, over generated ids
    float frequency_penalty = 0.0f;   // OpenAI style, over generated ids
    std::optional<uint64_t> seed;     // same seed => same text; unset: the engine picks one per request
    // -1: off (no cost). 0..kMaxTopLogprobs: each token comes with its log-probability and this many
    // best alternatives (token_logprobs.h: from the raw logits, before every setting above).
    int logprobs = -1;

    bool greedy() const { return temperature < 1e-5f; }
};

struct StopConditions {
    int max_tokens = 256;                // generated tokens at most
    std::vector<std::string> stop_strings;  // matched across token boundaries; not included in the text
    std::vector<int> stop_token_ids;     // in addition to the model's EOS ids
    bool ignore_eos = false;             // benchmarks: always generate max_tokens
};

// Throw folio::Error naming the first setting out of range, for a request to be refused at submit
// (the sampler itself never fails on them, but their results would mean nothing):
// temperature finite >= 0; top_k >= 0; top_p and min_p in [0, 1]; repetition_penalty finite > 0;
// presence/frequency penalties in [-2, 2]; logprobs in
// [-1, kMaxTopLogprobs]; max_tokens >= 1; no empty stop string.
void validate(const SamplingParams& params);
void validate(const StopConditions& stop);

}  // namespace folio
