// Logprobs as the sampler reports them: the raw logits' log_softmax (vLLM's default raw mode), checked
// against a double-precision log_softmax of the same row; the top list, the sampled token's rank,
// independence from penalties and temperature, and the range check.
#include "engine/sampling/token_logprobs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/core/error.h"
#include "engine/sampling/sampler.h"

namespace folio {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::vector<float> random_row(int vocab, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> d(0.0f, 3.0f);
    std::vector<float> row(size_t(vocab), 0.0f);
    for (float& x : row) x = d(rng);
    row[7] = kNegInf;  // a ruled-out id (a padded vocabulary)
    row[11] = row[12];  // a tie: the lower id comes first
    return row;
}

std::vector<double> reference_log_softmax(const std::vector<float>& row) {
    double max = -std::numeric_limits<double>::infinity();
    for (float x : row) max = std::max(max, double(x));
    double sum = 0;
    for (float x : row) sum += std::exp(double(x) - max);
    std::vector<double> out;
    for (float x : row) out.push_back(double(x) - max - std::log(sum));
    return out;
}

void expect_matches_reference(const std::vector<float>& row, int32_t token, const TokenLogprobs& lp, int k) {
    const std::vector<double> ref = reference_log_softmax(row);
    EXPECT_NEAR(lp.logprob, ref[size_t(token)], 1e-5);
    int greater = 0;
    for (double r : ref) greater += r > ref[size_t(token)];
    EXPECT_EQ(lp.rank, 1 + greater);
    // The top k: the k best ids in (logprob desc, id asc) order.
    std::vector<int32_t> ids(row.size());
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = int32_t(i);
    std::stable_sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) { return row[size_t(a)] > row[size_t(b)]; });
    ASSERT_EQ(int(lp.top.size()), k);
    for (int i = 0; i < k; ++i) {
        EXPECT_EQ(lp.top[size_t(i)].id, ids[size_t(i)]) << "place " << i;
        EXPECT_NEAR(lp.top[size_t(i)].logprob, ref[size_t(ids[size_t(i)])], 1e-5);
        if (i > 0) {
            EXPECT_GE(lp.top[size_t(i - 1)].logprob, lp.top[size_t(i)].logprob);
        }
    }
    // The sampled token is in the list exactly when its rank is within k.
    const bool listed = std::any_of(lp.top.begin(), lp.top.end(), [&](const TokenLogprob& t) { return t.id == token; });
    EXPECT_EQ(listed, lp.rank <= k) << "rank " << lp.rank;
}

TEST(TokenLogprobs, EqualADoublePrecisionLogSoftmaxOfTheSameLogits) {
    const int vocab = 32000;
    for (uint64_t seed : {1u, 2u, 3u}) {
        const std::vector<float> row = random_row(vocab, seed);
        for (int32_t token : {int32_t(0), int32_t(12), int32_t(31999)}) {
            TokenLogprobs lp;
            token_logprobs(row.data(), vocab, token, 20, lp);
            expect_matches_reference(row, token, lp, 20);
        }
        TokenLogprobs ruled_out;
        token_logprobs(row.data(), vocab, 7, 0, ruled_out);
        EXPECT_EQ(ruled_out.logprob, kNegInf);
        EXPECT_TRUE(ruled_out.top.empty());
    }
}

TEST(TokenLogprobs, TheSamplerReportsTheRawLogitsWhateverTheSettings) {
    const int vocab = 5000;
    SamplingParams p;
    p.temperature = 0.7f;
    p.top_k = 40;
    p.top_p = 0.9f;
    p.repetition_penalty = 1.3f;
    p.presence_penalty = 0.5f;
    p.logprobs = 5;
    const std::vector<int32_t> history = {3, 4, 5, 100, 100, 2500};
    Sampler sampler;
    for (uint64_t step = 0; step < 30; ++step) {
        const std::vector<float> raw = random_row(vocab, 40 + step);
        std::vector<float> row = raw;
        SamplingRow r;
        r.params = &p;
        r.prompt_ids = history.data();
        r.num_prompt_ids = 3;
        r.output_ids = history.data() + 3;
        r.num_output_ids = 3;
        r.seed = 9;
        r.step = step;
        TokenLogprobs lp;
        const int32_t token = sampler.sample(row.data(), vocab, r, &lp);
        // Same token as without logprobs: asking for them changes nothing else.
        std::vector<float> again = raw;
        EXPECT_EQ(sampler.sample(again.data(), vocab, r), token);
        expect_matches_reference(raw, token, lp, 5);
    }
}

TEST(TokenLogprobs, TheGreedyTokenHasTheLargestLogprobAndRankOne) {
    const int vocab = 128256;  // a Llama 3 vocabulary: one log_softmax per step
    std::vector<float> raw = random_row(vocab, 77);
    SamplingParams p;
    p.temperature = 0;
    p.logprobs = 20;
    SamplingRow r;
    r.params = &p;
    Sampler sampler;
    TokenLogprobs lp;
    std::vector<float> row = raw;
    const int32_t token = sampler.sample(row.data(), vocab, r, &lp);
    EXPECT_EQ(lp.rank, 1);
    ASSERT_FALSE(lp.top.empty());
    EXPECT_EQ(lp.top[0].id, token);
    EXPECT_EQ(lp.top[0].logprob, lp.logprob);
    const std::vector<double> ref = reference_log_softmax(raw);
    EXPECT_NEAR(lp.logprob, *std::max_element(ref.begin(), ref.end()), 1e-5);
    expect_matches_reference(raw, token, lp, 20);
}

TEST(TokenLogprobs, NotComputedUnlessAskedAndRangeChecked) {
    SamplingParams p;
    p.temperature = 0;
    SamplingRow r;
    r.params = &p;
    std::vector<float> row = {1, 2, 3};
    TokenLogprobs lp;
    lp.rank = -5;
    Sampler sampler;
    EXPECT_EQ(sampler.sample(row.data(), 3, r, &lp), 2);
    EXPECT_EQ(lp.rank, -5) << "logprobs = -1 (off) must leave the output alone";
    p.logprobs = 21;
    EXPECT_THROW(validate(p), Error);
    p.logprobs = -2;
    EXPECT_THROW(validate(p), Error);
    p.logprobs = 20;
    EXPECT_NO_THROW(validate(p));
    try {
        p.logprobs = 21;
        validate(p);
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("logprobs"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace folio
