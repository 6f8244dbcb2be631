#pragma once
// Turns one logits row into one token id: penalties, temperature, top-k, top-p, min-p, then a draw
// with a counter-based random number (seed, step), so the same seed gives the same text whatever
// else shares the batch, and a device sampler can draw the very same number.
//
// The exact procedure (a device sampler follows it; it agrees token for token unless a draw falls
// within rounding of a boundary between two tokens' cumulative probabilities):
//  1. Penalties on the raw logits. Repetition (HF): each distinct id of prompt + output, once:
//     l > 0 ? l / r : l * r. Then presence/frequency (OpenAI/vLLM) over the output ids:
//     l -= frequency * count + presence * (count > 0).
//  2. Greedy (temperature < 1e-5): argmax, lowest id on ties. Done.
//  3. s = l / temperature (float). NaN counts as -inf. Order: s descending (that is probability
//     descending), ties by lower id. top-k (k > 0) keeps the first k.
//  4. Candidates: the kept ids with w = exp(s - max s) > 0 (float); if some s are +inf, exactly
//     those, with w = 1. No candidate at all (every logit NaN or -inf): folio::Error.
//     top-p keeps the smallest prefix whose mass reaches p * (mass kept so far) (p <= 0: the first
//     only); min-p keeps those with w >= min_p (that is p >= min_p * p_max). At least one stays.
//  5. u = sampling_uniform(seed, step); walk the kept tokens in that order adding w (double) and
//     return the first whose running sum exceeds u * (sum of kept w).
#include <cstdint>
#include <vector>

#include "engine/sampling/sampling_row.h"
#include "engine/sampling/token_logprobs.h"

namespace folio {

// Uniform in [0, 1) from (seed, step): a pure function, identical on host and device (see
// sampling_random.h for the definition a kernel includes).
double sampling_uniform(uint64_t seed, uint64_t step);

class Sampler {
public:
    // Modifies `logits` (vocab entries) in place. Greedy: argmax, lowest id on ties. Throws
    // folio::Error when row.params is null, vocab < 1, or no logit is usable (all NaN or -inf).
    // Depends on nothing but (logits, row); scratch buffers are kept between calls.
    // When row.params->logprobs >= 0 and `logprobs` is given, it gets the sampled token's
    // log-probability and top alternatives from the logits as they came in (token_logprobs.h).
    int32_t sample(float* logits, int vocab, const SamplingRow& row, TokenLogprobs* logprobs = nullptr);
    // One token per row of `logits` ([rows.size(), vocab], row i sampled with rows[i]) into `sampled`:
    // the host sampling of a step whose backend does not sample on its device. Throws folio::Error
    // when the logits are not rows.size() whole rows, or as sample() does.
    // `logprobs` (optional): one entry per row, filled for the rows that ask for logprobs.
    void sample_rows(std::vector<float>& logits, const std::vector<SamplingRow>& rows, std::vector<int32_t>& sampled,
                     std::vector<TokenLogprobs>* logprobs = nullptr);

private:
    struct Candidate {
        float s;      // logit / temperature: the sort key
        float w;      // exp(s - max s): the unnormalised probability
        int32_t id;
    };

    int32_t sample_modified(float* logits, int vocab, const SamplingRow& row);
    void apply_penalties(float* logits, int vocab, const SamplingRow& row);
    // Puts the best `m` of candidates_[0, n) in order at the front (the first sorted_ already are).
    void ensure_sorted(size_t m, size_t n);
    // Extends the sorted prefix (within the first n) by at least one candidate: by as many of the
    // best as it takes for their weights to reach `need`, found with a histogram of s so that a
    // walk sorts about what it visits instead of the whole vocabulary.
    void sort_more(double need, size_t n, float max_s);
    // The best k of the scaled logits into candidates_ (in order), with a bounded heap: one
    // comparison per logit, no exp() for the rest of the vocabulary.
    void select_top_k(const float* s, int vocab, size_t k);

    std::vector<Candidate> candidates_;  // scratch reused between calls
    std::vector<float> raw_;             // logprobs: the row before penalties and temperature
    std::vector<uint32_t> seen_;         // repetition penalty: seen_[id] == epoch_ once penalised
    uint32_t epoch_ = 0;
    std::vector<int32_t> counts_;        // presence/frequency: occurrences in the output (kept zeroed)
    size_t sorted_ = 0;                  // candidates_[0, sorted_) are the best, in order
    double bucket_mass_[512];            // sort_more's histogram of max s - s, in steps of 1/4
};

}  // namespace folio
