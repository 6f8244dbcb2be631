#include "engine/sampling/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "engine/core/error.h"
#include "engine/sampling/sampling_random.h"

namespace folio {

double sampling_uniform(uint64_t seed, uint64_t step) { return counter_uniform(seed, step); }

namespace {

// Best first: larger scaled logit, then lower id.
struct BetterCandidate {
    template <class C>
    bool operator()(const C& a, const C& b) const {
        return a.s > b.s || (a.s == b.s && a.id < b.id);
    }
};

int32_t argmax_lowest_id(const float* logits, int vocab) {
    int32_t best = -1;
    float best_v = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < vocab; ++i) {
        if (logits[i] > best_v) {  // NaN compares false: never chosen
            best_v = logits[i];
            best = i;
        }
    }
    return best;
}

// Histogram bucket of a candidate for Sampler::sort_more: (max s - s) in steps of 1/4, monotone in s.
constexpr int kBuckets = 512;
inline int bucket_of(float s, float max_s) {
    const float d = (max_s - s) * 4.0f;  // >= 0; w > 0 bounds it near 420
    return d < float(kBuckets - 1) ? int(d) : kBuckets - 1;
}

[[noreturn]] void no_usable_logit(int vocab) {
    throw Error("sampler: all " + std::to_string(vocab) +
                " logits are NaN or -inf, so no token can be chosen (the forward pass produced no usable scores)");
}

}  // namespace

void Sampler::apply_penalties(float* logits, int vocab, const SamplingRow& row) {
    const SamplingParams& p = *row.params;
    const float rep = p.repetition_penalty;
    if (rep != 1.0f && rep > 0.0f && std::isfinite(rep)) {
        if (seen_.size() < size_t(vocab)) seen_.assign(size_t(vocab), 0);
        if (++epoch_ == 0) {  // wrapped: old marks could collide
            std::fill(seen_.begin(), seen_.end(), 0);
            epoch_ = 1;
        }
        auto penalise = [&](const int32_t* ids, int n) {
            for (int i = 0; i < n; ++i) {
                const int32_t id = ids[i];
                if (id < 0 || id >= vocab || seen_[size_t(id)] == epoch_) continue;
                seen_[size_t(id)] = epoch_;
                float& l = logits[id];
                l = l > 0.0f ? l / rep : l * rep;
            }
        };
        if (row.prompt_ids) penalise(row.prompt_ids, row.num_prompt_ids);
        if (row.output_ids) penalise(row.output_ids, row.num_output_ids);
    }
    if ((p.presence_penalty != 0.0f || p.frequency_penalty != 0.0f) && row.output_ids) {
        if (counts_.size() < size_t(vocab)) counts_.assign(size_t(vocab), 0);
        for (int i = 0; i < row.num_output_ids; ++i) {
            const int32_t id = row.output_ids[i];
            if (id >= 0 && id < vocab) ++counts_[size_t(id)];
        }
        for (int i = 0; i < row.num_output_ids; ++i) {
            const int32_t id = row.output_ids[i];
            if (id < 0 || id >= vocab || counts_[size_t(id)] == 0) continue;
            logits[id] -= p.frequency_penalty * float(counts_[size_t(id)]) + p.presence_penalty;
            counts_[size_t(id)] = 0;  // applied once per distinct id; leaves the scratch zeroed
        }
    }
}

void Sampler::ensure_sorted(size_t m, size_t n) {
    m = std::min(m, n);
    if (m <= sorted_) return;
    auto first = candidates_.begin() + std::ptrdiff_t(sorted_);
    auto mid = candidates_.begin() + std::ptrdiff_t(m);
    auto last = candidates_.begin() + std::ptrdiff_t(n);
    if (m < n) std::nth_element(first, mid, last, BetterCandidate{});
    std::sort(first, mid, BetterCandidate{});
    sorted_ = m;
}

void Sampler::sort_more(double need, size_t n, float max_s) {
    const size_t rest = n - sorted_;
    if (rest == 0) return;
    if (!std::isfinite(max_s)) {  // +inf logits: all candidates weigh 1, no histogram to make
        ensure_sorted(n, n);
        return;
    }
    // Histogram of the unsorted rest by s: the buckets up to the one where the mass reaches `need`
    // hold exactly the best candidates needed (buckets are monotone in s).
    std::fill(bucket_mass_, bucket_mass_ + kBuckets, 0.0);
    for (size_t i = sorted_; i < n; ++i) bucket_mass_[bucket_of(candidates_[i].s, max_s)] += candidates_[i].w;
    int last = kBuckets - 1;
    double mass = 0;
    for (int b = 0; b < kBuckets; ++b) {
        mass += bucket_mass_[b];
        if (mass >= need) {
            last = b;
            break;
        }
    }
    auto first = candidates_.begin() + std::ptrdiff_t(sorted_);
    auto mid = std::partition(first, candidates_.begin() + std::ptrdiff_t(n),
                              [&](const Candidate& c) { return bucket_of(c.s, max_s) <= last; });
    if (mid == first) {  // rounding: the mass fell short of `need`; take the next best one
        ensure_sorted(sorted_ + 1, n);
        return;
    }
    std::sort(first, mid, BetterCandidate{});
    sorted_ += size_t(mid - first);
}

void Sampler::select_top_k(const float* s, int vocab, size_t k) {
    // A heap whose front is the worst of the best k so far. Ids arrive in increasing order, so a
    // later id with an equal logit never displaces an earlier one: ties go to the lower id.
    candidates_.clear();
    for (int i = 0; i < vocab; ++i) {
        const float v = s[i];
        if (!(v > -std::numeric_limits<float>::infinity())) continue;  // -inf and NaN
        if (candidates_.size() < k) {
            candidates_.push_back({v, 0.0f, i});
            std::push_heap(candidates_.begin(), candidates_.end(), BetterCandidate{});
        } else if (v > candidates_.front().s) {
            std::pop_heap(candidates_.begin(), candidates_.end(), BetterCandidate{});
            candidates_.back() = {v, 0.0f, i};
            std::push_heap(candidates_.begin(), candidates_.end(), BetterCandidate{});
        }
    }
    std::sort(candidates_.begin(), candidates_.end(), BetterCandidate{});
}

int32_t Sampler::sample(float* logits, int vocab, const SamplingRow& row, TokenLogprobs* logprobs) {
    if (!row.params) throw Error("sampler: a row without sampling parameters");
    if (vocab < 1 || !logits) throw Error("sampler: empty logits row");
    if (logprobs && row.params->logprobs >= 0) {
        // Raw logprobs (vLLM's default mode): from the row as the model gave it.
        raw_.assign(logits, logits + vocab);
        const int32_t token = sample_modified(logits, vocab, row);
        token_logprobs(raw_.data(), vocab, token, row.params->logprobs, *logprobs);
        return token;
    }
    return sample_modified(logits, vocab, row);
}

int32_t Sampler::sample_modified(float* logits, int vocab, const SamplingRow& row) {
    const SamplingParams& p = *row.params;
    apply_penalties(logits, vocab, row);

    if (p.greedy()) {
        const int32_t best = argmax_lowest_id(logits, vocab);
        if (best < 0) no_usable_logit(vocab);
        return best;
    }

    // Temperature, then the candidates with their weights.
    constexpr float kInf = std::numeric_limits<float>::infinity();
    for (int i = 0; i < vocab; ++i) logits[i] /= p.temperature;
    sorted_ = 0;
    if (p.top_k > 0 && p.top_k < vocab) {
        select_top_k(logits, vocab, size_t(p.top_k));
        sorted_ = candidates_.size();
    } else {
        candidates_.clear();
        for (int i = 0; i < vocab; ++i)
            if (logits[i] > -kInf) candidates_.push_back({logits[i], 0.0f, i});
    }
    float max_s = -kInf;
    for (const auto& c : candidates_) max_s = std::max(max_s, c.s);
    if (!(max_s > -kInf)) no_usable_logit(vocab);
    // Keep the ids with w > 0 (for +inf logits: exactly those, w = 1), in their order.
    size_t kept = 0;
    for (size_t i = 0; i < candidates_.size(); ++i) {
        Candidate c = candidates_[i];
        c.w = max_s == kInf ? (c.s == kInf ? 1.0f : 0.0f) : std::exp(c.s - max_s);
        if (c.w > 0.0f) candidates_[kept++] = c;
    }
    candidates_.resize(kept);
    sorted_ = std::min(sorted_, kept);
    size_t n = kept;  // never 0: the max has w = 1

    auto mass = [&](size_t count) {
        double z = 0;
        for (size_t i = 0; i < count; ++i) z += candidates_[i].w;
        return z;
    };
    double z = mass(n);

    if (p.top_p < 1.0f) {
        size_t keep = 1;
        if (p.top_p > 0.0f) {
            const double target = double(p.top_p) * z;
            double cum = 0;
            size_t i = 0;
            for (;;) {
                if (i == sorted_) sort_more(target - cum, n, max_s);
                cum += candidates_[i].w;
                ++i;
                if (cum >= target || i == n) break;
            }
            keep = i;
        } else {
            ensure_sorted(1, n);
        }
        n = keep;
        z = mass(n);
    }
    if (p.min_p > 0.0f) {
        // The best candidate has w = 1, so w >= min_p is p >= min_p * p_max.
        size_t keep = 0;
        while (keep < sorted_ && keep < n && candidates_[keep].w >= p.min_p) ++keep;
        if (keep == sorted_ && keep < n) {  // the unsorted rest: move the survivors up
            auto first = candidates_.begin() + std::ptrdiff_t(keep);
            auto last = candidates_.begin() + std::ptrdiff_t(n);
            keep += size_t(std::partition(first, last, [&](const Candidate& c) { return c.w >= p.min_p; }) - first);
        }
        n = std::max<size_t>(keep, 1);
        if (n == 1) ensure_sorted(1, candidates_.size());
        z = mass(n);
    }

    // Inverse-CDF draw over the kept tokens, best first.
    const double target = sampling_uniform(row.seed, row.step) * z;
    double cum = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i == sorted_) sort_more(target - cum, n, max_s);
        cum += candidates_[i].w;
        if (cum > target) return candidates_[i].id;
    }
    return candidates_[n - 1].id;  // rounding left the sum a hair below the target: the last one
}

void Sampler::sample_rows(std::vector<float>& logits, const std::vector<SamplingRow>& rows, std::vector<int32_t>& sampled,
                          std::vector<TokenLogprobs>* logprobs) {
    const size_t n = rows.size();
    sampled.resize(n);
    if (logprobs) logprobs->resize(n);
    if (n == 0) return;
    if (logits.size() % n != 0 || logits.size() < n)
        throw Error("sampler: " + std::to_string(logits.size()) + " logits are not " + std::to_string(n) + " whole rows");
    const int vocab = int(logits.size() / n);
    for (size_t i = 0; i < n; ++i)
        sampled[i] = sample(logits.data() + i * size_t(vocab), vocab, rows[i], logprobs ? &(*logprobs)[i] : nullptr);
}

}  // namespace folio
