#include "engine/sampling/token_logprobs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace folio {

namespace {

// Best first: larger logit, then lower id.
bool better(const TokenLogprob& a, const TokenLogprob& b) { return a.logprob > b.logprob || (a.logprob == b.logprob && a.id < b.id); }

}  // namespace

void token_logprobs(const float* raw, int vocab, int32_t token, int k, TokenLogprobs& out) {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    auto value = [&](int i) { return std::isnan(raw[i]) ? kNegInf : raw[i]; };
    float max = kNegInf;
    for (int i = 0; i < vocab; ++i) max = std::max(max, value(i));
    const bool regular = max > kNegInf && std::isfinite(max);  // else every token is -inf, or some +inf
    const float own = token >= 0 && token < vocab ? value(token) : kNegInf;

    // One pass for the rest: the sum of exp (log_softmax(x)_i = x_i - max - log(sum_j exp(x_j - max)),
    // in double), the tokens above the sampled one (its rank), and the best k by raw logit (the same
    // order as by logprob) in a heap whose front is the worst kept.
    k = std::clamp(k, 0, std::min(kMaxTopLogprobs, vocab));
    out.top.clear();
    double sum = 0;
    int greater = 0;
    for (int i = 0; i < vocab; ++i) {
        const float v = value(i);
        if (regular) sum += std::exp(double(v) - double(max));
        greater += v > own;
        if (k == 0 || !(v > kNegInf)) continue;
        const TokenLogprob c{int32_t(i), v};
        if (int(out.top.size()) < k) {
            out.top.push_back(c);
            std::push_heap(out.top.begin(), out.top.end(), better);
        } else if (better(c, out.top.front())) {
            std::pop_heap(out.top.begin(), out.top.end(), better);
            out.top.back() = c;
            std::push_heap(out.top.begin(), out.top.end(), better);
        }
    }
    const double log_z = double(max) + std::log(sum);
    auto logprob_of = [&](float v) -> float {
        if (!regular) return v == max ? 0.0f : kNegInf;  // degenerate rows: the +inf ones (or none) are certain
        return float(double(v) - log_z);
    };
    out.logprob = token >= 0 && token < vocab ? logprob_of(own) : kNegInf;
    out.rank = 1 + greater;
    std::sort(out.top.begin(), out.top.end(), better);
    for (TokenLogprob& t : out.top) t.logprob = logprob_of(t.logprob);
}

}  // namespace folio
