#pragma once
// Log-probabilities of a sampled token and its best alternatives, as OpenAI's API and vLLM report
// them. They are computed from the model's raw logits (vLLM's default logprobs_mode "raw_logprobs"):
// log_softmax over the whole vocabulary before penalties, temperature, top-k/top-p/min-p, so they
// describe the model, not the sampling settings.
#include <cstdint>
#include <vector>

namespace folio {

// The most alternatives a request may ask for (OpenAI's and vLLM's default max_logprobs).
inline constexpr int kMaxTopLogprobs = 20;

struct TokenLogprob {
    int32_t id = -1;
    float logprob = 0;  // natural log; -inf for a token the model rules out (a padded id)
};

struct TokenLogprobs {
    float logprob = 0;  // the sampled token's
    int rank = 0;       // 1 + the number of tokens with a strictly larger logprob (the argmax: 1)
    std::vector<TokenLogprob> top;  // the best `k` tokens, best first (lower id on ties); finite ones only
};

// `raw`: one row of the model's logits (vocab entries, before any sampling step). Fills `out` for
// `token` with the `k` (0..kMaxTopLogprobs) best alternatives. log_softmax is computed in double
// (max, then the sum of exp), the top k are selected with a bounded heap (never a sort of the
// vocabulary). NaN logits count as -inf.
void token_logprobs(const float* raw, int vocab, int32_t token, int k, TokenLogprobs& out);

}  // namespace folio
