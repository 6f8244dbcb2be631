#pragma once
// Perplexity over a token stream, the measure of what a quantization costs (as llama.cpp's perplexity
// tool uses it): the text's tokens are cut into non-overlapping windows of ctx - 1 tokens (the last one
// may be shorter); each window runs as [BOS] + window with the KV cache emptied between windows, and
// every window token is scored by the log-probability the model gave it from BOS and the tokens before
// it. PPL = exp(mean negative log-likelihood). Windows run side by side as sequences of one batch,
// one position per step, so every position's logits come out.
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/kv/kv_dtype.h"

namespace folio {

class Backend;
struct Model;

struct PerplexityOptions {
    int ctx = 512;       // tokens per window including the BOS
    int parallel = 8;    // windows per batch
    KvCacheDtype kv_cache_dtype = KvCacheDtype::Auto;
    // After each step: tokens scored so far and in all.
    std::function<void(int64_t done, int64_t total)> progress;
    // For each scored token, in any order: its index in window-major order (window * (ctx - 1) + position),
    // the token, and the logits row the model gave it (vocab floats). For saving or comparing runs.
    std::function<void(int64_t index, int32_t target, const float* logits)> on_logits;
};

struct PerplexityResult {
    int windows = 0;
    int64_t tokens = 0;      // scored
    double mean_nll = 0;
    double ppl = 0;
    double ppl_error = 0;    // one standard error, by error propagation as llama.cpp reports it
    std::vector<float> nll;  // per scored token, window-major
};

// The windows of a token stream (text without BOS): [start, end) of each.
std::vector<std::pair<int64_t, int64_t>> perplexity_windows(int64_t num_tokens, int ctx);

// Runs the windows through `backend` (whose KV cache this call allocates). Throws folio::Error for a
// ctx outside [2, the model's context], a stream of fewer than 1 token or token ids outside the vocab.
PerplexityResult run_perplexity(Backend& backend, const Model& model, const std::vector<int32_t>& tokens, const PerplexityOptions& options);

// log-softmax of a logits row into `out` (double accumulation of the sum), and the negative log-likelihood of `target`.
void log_softmax(const float* logits, int vocab, float* out);
double negative_log_likelihood(const float* logits, int vocab, int32_t target);

}  // namespace folio
