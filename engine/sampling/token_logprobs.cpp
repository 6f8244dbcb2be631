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
    // log_softmax(x)_i = x_i - max - log(sum_j exp(x_j - max)), every term in double.
    double sum = 0;
    if (max > kNegInf && std::isfinite(max)) {
        for (int i = 0; i < vocab; ++i) sum += std::exp(double(value(i)) - double(max));
    }
    const double log_z = double(max) + std::log(sum);
    auto logprob_of = [&](int i) -> float {
        const float v = value(i);
        if (!(max > kNegInf) || !std::isfinite(max)) return v == max ? 0.0f : kNegInf;  // degenerate rows
        return float(double(v) - log_z);
    };

    const float own = token >= 0 && token < vocab ? value(token) : kNegInf;
    int greater = 0;
    for (int i = 0; i < vocab; ++i) greater += value(i) > own;
    out.logprob = token >= 0 && token < vocab ? logprob_of(token) : kNegInf;
    out.rank = 1 + greater;

    // The best k by raw logit (same order as by logprob), with a heap whose front is the worst kept.
    k = std::clamp(k, 0, std::min(kMaxTopLogprobs, vocab));
    out.top.clear();
    if (k == 0) return;
    for (int i = 0; i < vocab; ++i) {
        const float v = value(i);
        if (!(v > kNegInf)) continue;
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
    std::sort(out.top.begin(), out.top.end(), better);
    for (TokenLogprob& t : out.top) t.logprob = logprob_of(t.id);
}

}  // namespace folio
