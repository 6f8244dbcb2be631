// The sampler: its random numbers, penalties against hand-computed values, greedy ties, the exact
// sets kept by top-k/top-p/min-p and the distribution drawn from them (fixed seeds: a chi-square
// bound that cannot flake), reproducibility, agreement with a naive full-sort reference on real
// vocabulary sizes, and edge cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "engine/core/error.h"
#include "engine/sampling/finish_reason.h"
#include "engine/sampling/sampler.h"

namespace folio {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

SamplingRow row_for(const SamplingParams& p, uint64_t seed, uint64_t step) {
    SamplingRow r;
    r.params = &p;
    r.seed = seed;
    r.step = step;
    return r;
}

int32_t sample_once(Sampler& s, std::vector<float> logits, const SamplingRow& row) {
    return s.sample(logits.data(), int(logits.size()), row);
}

// Draws n tokens (steps 0..n-1 of one seed) and counts them.
std::map<int, int> draw_counts(const std::vector<float>& logits, const SamplingParams& p, int n, uint64_t seed) {
    Sampler s;
    std::map<int, int> counts;
    for (int i = 0; i < n; ++i) ++counts[sample_once(s, logits, row_for(p, seed, uint64_t(i)))];
    return counts;
}

// Chi-square statistic of `counts` against probabilities `q` (ids with q = 0 must never appear).
double chi_square(const std::map<int, int>& counts, const std::map<int, double>& q, int n) {
    double chi = 0;
    for (const auto& [id, c] : counts) EXPECT_TRUE(q.count(id)) << "token " << id << " drawn but not kept";
    for (const auto& [id, prob] : q) {
        const double e = n * prob;
        const double c = counts.count(id) ? counts.at(id) : 0;
        chi += (c - e) * (c - e) / e;
    }
    return chi;
}

std::vector<float> log_probs(const std::vector<double>& p) {
    std::vector<float> l;
    for (double x : p) l.push_back(float(std::log(x)));
    return l;
}

TEST(SamplingUniform, PinnedDefinition) {
    // Computed independently (Python) from the definition in sampling_random.h; a device sampler
    // must produce exactly these.
    auto bits = [](uint64_t seed, uint64_t step) { return uint64_t(sampling_uniform(seed, step) * 0x1p53); };
    EXPECT_EQ(bits(0, 0), 0x1c4415072f63b9ull);
    EXPECT_EQ(bits(1, 0), 0x17fdf0061bb85aull);
    EXPECT_EQ(bits(1, 1), 0xbeaa59c905e55ull);
    EXPECT_EQ(bits(1234, 99), 0x1948b8d2c60ebeull);
    EXPECT_EQ(bits(~0ull, ~0ull), 0x97ffb005d7f62ull);
    EXPECT_DOUBLE_EQ(sampling_uniform(0, 0), 0.8833108082136426);
}

TEST(SamplingUniform, RangeAndSpread) {
    double sum = 0;
    int below_tenth = 0;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        const double u = sampling_uniform(42, uint64_t(i));
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u;
        below_tenth += u < 0.1;
    }
    EXPECT_NEAR(sum / n, 0.5, 0.01);
    EXPECT_NEAR(below_tenth / double(n), 0.1, 0.01);
    EXPECT_NE(sampling_uniform(1, 5), sampling_uniform(2, 5));
    EXPECT_NE(sampling_uniform(1, 5), sampling_uniform(1, 6));
}

TEST(Sampler, PenaltiesMatchHandComputedValues) {
    SamplingParams p;
    p.temperature = 0;  // greedy: the logits are left as the penalties made them
    p.repetition_penalty = 2.0f;
    p.presence_penalty = 0.5f;
    p.frequency_penalty = 0.25f;
    const std::vector<int32_t> prompt = {0, 1, 1, 0};
    const std::vector<int32_t> output = {3, 3, 2};
    SamplingRow r = row_for(p, 0, 0);
    r.prompt_ids = prompt.data();
    r.num_prompt_ids = int(prompt.size());
    r.output_ids = output.data();
    r.num_output_ids = int(output.size());
    std::vector<float> logits = {2.0f, -1.0f, 0.5f, 3.0f, 0.0f, 0.75f};
    Sampler s;
    EXPECT_EQ(s.sample(logits.data(), int(logits.size()), r), 0);
    // repetition (once per distinct id of prompt+output): 2/2, -1*2, 0.5/2, 3/2; 4 and 5 untouched.
    // then output counts {3: 2, 2: 1}: 3 -> 1.5 - (0.25*2 + 0.5), 2 -> 0.25 - (0.25*1 + 0.5).
    EXPECT_EQ(logits, (std::vector<float>{1.0f, -2.0f, -0.5f, 0.5f, 0.0f, 0.75f}));

    // Applied a second time to a fresh row: the scratch state left nothing behind.
    std::vector<float> again = {2.0f, -1.0f, 0.5f, 3.0f, 0.0f, 0.75f};
    s.sample(again.data(), int(again.size()), r);
    EXPECT_EQ(again, logits);

    // A penalty changes the greedy choice.
    SamplingParams q;
    q.temperature = 0;
    q.repetition_penalty = 4.0f;
    SamplingRow r2 = row_for(q, 0, 0);
    const std::vector<int32_t> hist = {1};
    r2.output_ids = hist.data();
    r2.num_output_ids = 1;
    EXPECT_EQ(sample_once(s, {1.0f, 2.0f}, r2), 0);  // 2/4 < 1
    // Ids outside the vocabulary in the history are ignored.
    const std::vector<int32_t> bad = {-1, 99};
    r2.output_ids = bad.data();
    r2.num_output_ids = 2;
    EXPECT_EQ(sample_once(s, {1.0f, 2.0f}, r2), 1);
}

TEST(Sampler, GreedyLowestIdOnTies) {
    SamplingParams p;
    p.temperature = 0;
    Sampler s;
    EXPECT_EQ(sample_once(s, {0.5f, 3.0f, 1.0f, 3.0f}, row_for(p, 1, 1)), 1);
    EXPECT_EQ(sample_once(s, {kNan, 3.0f, kNan, 3.0f}, row_for(p, 1, 1)), 1);
    EXPECT_EQ(sample_once(s, {-kInf, -kInf, -kInf, 0.0f}, row_for(p, 1, 1)), 3);
    p.temperature = 0.9e-5f;  // below 1e-5 is greedy too
    EXPECT_EQ(sample_once(s, {0.5f, 3.0f, 1.0f, 3.0f}, row_for(p, 1, 1)), 1);
}

TEST(Sampler, FullDistributionWithTemperature) {
    const std::vector<double> probs = {0.5, 0.2, 0.15, 0.1, 0.05};
    SamplingParams p;
    p.temperature = 2.0f;  // p_i ∝ probs_i^(1/2)
    std::map<int, double> q;
    double z = 0;
    for (double x : probs) z += std::sqrt(x);
    for (size_t i = 0; i < probs.size(); ++i) q[int(i)] = std::sqrt(probs[i]) / z;
    const int n = 20000;
    EXPECT_LT(chi_square(draw_counts(log_probs(probs), p, n, 11), q, n), 40.0);  // df 4, p < 1e-7
}

TEST(Sampler, TopKKeepsExactlyTheKBest) {
    const std::vector<double> probs = {0.05, 0.3, 0.1, 0.25, 0.2, 0.1};
    SamplingParams p;
    p.top_k = 3;  // keeps ids 1, 3, 4 (0.3, 0.25, 0.2)
    const std::map<int, double> q = {{1, 0.3 / 0.75}, {3, 0.25 / 0.75}, {4, 0.2 / 0.75}};
    const int n = 20000;
    EXPECT_LT(chi_square(draw_counts(log_probs(probs), p, n, 5), q, n), 35.0);  // df 2
    // Ties at the boundary: the lower id stays.
    p.top_k = 2;
    const auto c = draw_counts({1.0f, 0.0f, 1.0f, 1.0f}, p, 2000, 3);
    EXPECT_EQ(c.size(), 2u);
    EXPECT_TRUE(c.count(0) && c.count(2));
}

TEST(Sampler, TopPKeepsTheSmallestSetReachingP) {
    const std::vector<double> probs = {0.06, 0.4, 0.15, 0.25, 0.1, 0.04};
    SamplingParams p;
    p.top_p = 0.75f;  // 0.4 + 0.25 = 0.65 < 0.75 <= 0.8: keeps ids 1, 3, 2
    const std::map<int, double> q = {{1, 0.4 / 0.8}, {3, 0.25 / 0.8}, {2, 0.15 / 0.8}};
    const int n = 20000;
    EXPECT_LT(chi_square(draw_counts(log_probs(probs), p, n, 6), q, n), 35.0);
    p.top_p = 0.3f;  // the best alone already reaches it
    EXPECT_EQ(draw_counts(log_probs(probs), p, 500, 6), (std::map<int, int>{{1, 500}}));
    p.top_p = 0.0f;  // keeps one: the best (lowest id on ties)
    EXPECT_EQ(draw_counts({1.0f, 2.0f, 2.0f}, p, 200, 6), (std::map<int, int>{{1, 200}}));
}

TEST(Sampler, MinPKeepsTokensAboveAFractionOfTheBest) {
    const std::vector<double> probs = {0.1, 0.4, 0.15, 0.25, 0.06, 0.04};
    SamplingParams p;
    p.min_p = 0.3f;  // p >= 0.12: ids 1, 3, 2
    const std::map<int, double> q = {{1, 0.4 / 0.8}, {3, 0.25 / 0.8}, {2, 0.15 / 0.8}};
    const int n = 20000;
    EXPECT_LT(chi_square(draw_counts(log_probs(probs), p, n, 7), q, n), 35.0);
    p.min_p = 1.0f;  // only the best
    EXPECT_EQ(draw_counts(log_probs(probs), p, 300, 7), (std::map<int, int>{{1, 300}}));
}

TEST(Sampler, FiltersApplyInOrder) {
    // top-k 5 keeps {1:.4, 3:.25, 2:.15, 0:.1, 4:.06} (mass .96); top-p .9 of that needs
    // .4+.25+.15+.1 = .9/.96 = .9375: 4 tokens; min-p .3 then drops id 0 (.1 < .12).
    const std::vector<double> probs = {0.1, 0.4, 0.15, 0.25, 0.06, 0.04};
    SamplingParams p;
    p.top_k = 5;
    p.top_p = 0.9f;
    p.min_p = 0.3f;
    const std::map<int, double> q = {{1, 0.4 / 0.8}, {3, 0.25 / 0.8}, {2, 0.15 / 0.8}};
    const int n = 20000;
    EXPECT_LT(chi_square(draw_counts(log_probs(probs), p, n, 8), q, n), 35.0);
    p.min_p = 0;
    const std::map<int, double> q4 = {{1, 0.4 / 0.9}, {3, 0.25 / 0.9}, {2, 0.15 / 0.9}, {0, 0.1 / 0.9}};
    EXPECT_LT(chi_square(draw_counts(log_probs(probs), p, n, 9), q4, n), 40.0);
}

std::vector<float> random_logits(int vocab, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, 3.0f);
    std::vector<float> l(size_t(vocab), 0.0f);
    for (auto& x : l) x = d(rng);
    return l;
}

TEST(Sampler, SameSeedSameSequenceOtherSeedsDiffer) {
    const auto logits = random_logits(8000, 1);
    SamplingParams p;
    p.temperature = 3.0f;  // flat enough that two seeds rarely draw the same token
    p.top_p = 0.95f;
    auto run = [&](uint64_t seed) {
        Sampler s;
        std::vector<int32_t> out;
        for (uint64_t step = 0; step < 100; ++step) out.push_back(sample_once(s, logits, row_for(p, seed, step)));
        return out;
    };
    const auto a = run(7), b = run(7), c = run(8);
    EXPECT_EQ(a, b);
    int differ = 0;
    for (size_t i = 0; i < a.size(); ++i) differ += a[i] != c[i];
    EXPECT_GT(differ, 90);
    // A sampler that served other rows in between gives the same tokens (no state leaks).
    Sampler shared;
    SamplingParams other;
    other.top_k = 3;
    other.repetition_penalty = 1.3f;
    for (uint64_t step = 0; step < 100; ++step) {
        sample_once(shared, random_logits(1000, uint32_t(step)), row_for(other, 3, step));
        ASSERT_EQ(sample_once(shared, logits, row_for(p, 7, step)), a[step]);
    }
}

// The procedure of sampler.h with a full sort and nothing clever.
int32_t reference_sample(std::vector<float> logits, const SamplingParams& p, uint64_t seed, uint64_t step) {
    struct C { float s, w; int32_t id; };
    std::vector<C> c;
    for (int i = 0; i < int(logits.size()); ++i) c.push_back({logits[size_t(i)] / p.temperature, 0.0f, i});
    std::sort(c.begin(), c.end(), [](const C& a, const C& b) { return a.s > b.s || (a.s == b.s && a.id < b.id); });
    if (p.top_k > 0 && size_t(p.top_k) < c.size()) c.resize(size_t(p.top_k));
    const float mx = c[0].s;
    std::vector<C> kept;
    for (auto x : c) {
        x.w = std::exp(x.s - mx);
        if (x.w > 0) kept.push_back(x);
    }
    c = kept;
    size_t n = c.size();
    auto mass = [&](size_t k) { double m = 0; for (size_t i = 0; i < k; ++i) m += c[i].w; return m; };
    double z = mass(n);
    if (p.top_p < 1) {
        size_t k = 0;
        double cum = 0;
        while (k < n) { cum += c[k].w; ++k; if (cum >= p.top_p * z) break; }
        n = std::max<size_t>(k, 1);
        z = mass(n);
    }
    if (p.min_p > 0) {
        size_t k = 0;
        while (k < n && c[k].w >= p.min_p) ++k;
        n = std::max<size_t>(k, 1);
        z = mass(n);
    }
    const double target = sampling_uniform(seed, step) * z;
    double cum = 0;
    for (size_t i = 0; i < n; ++i) { cum += c[i].w; if (cum > target) return c[i].id; }
    return c[n - 1].id;
}

TEST(Sampler, AgreesWithAFullSortReferenceOnRealVocabularies) {
    struct Case { int vocab; float t; int k; float top_p; float min_p; };
    const std::vector<Case> cases = {
        {32000, 1.0f, 0, 1.0f, 0.0f},   {32000, 0.7f, 40, 1.0f, 0.0f}, {32000, 0.7f, 0, 0.9f, 0.0f},
        {32000, 1.0f, 0, 1.0f, 0.05f},  {128256, 0.6f, 50, 0.9f, 0.0f}, {128256, 1.3f, 0, 0.95f, 0.02f},
        {128256, 1.0f, 0, 1.0f, 0.0f},  {32000, 5.0f, 0, 0.99f, 0.0f},  {32000, 1.0f, 100000, 1.0f, 0.0f},
    };
    Sampler s;
    for (size_t ci = 0; ci < cases.size(); ++ci) {
        const Case& c = cases[ci];
        SamplingParams p;
        p.temperature = c.t;
        p.top_k = c.k;
        p.top_p = c.top_p;
        p.min_p = c.min_p;
        for (uint64_t step = 0; step < 12; ++step) {
            const auto logits = random_logits(c.vocab, uint32_t(100 * ci + step));
            ASSERT_EQ(sample_once(s, logits, row_for(p, 99, step)), reference_sample(logits, p, 99, step))
                << "case " << ci << " step " << step;
        }
    }
}

TEST(Sampler, EdgeCases) {
    Sampler s;
    SamplingParams p;
    // top_k larger than the vocabulary: no effect.
    p.top_k = 1000;
    const std::vector<double> probs = {0.5, 0.3, 0.2};
    const std::map<int, double> q = {{0, 0.5}, {1, 0.3}, {2, 0.2}};
    EXPECT_LT(chi_square(draw_counts(log_probs(probs), p, 10000, 12), q, 10000), 35.0);
    // Everything -inf but one: that one, sampled or greedy.
    p = SamplingParams{};
    for (uint64_t step = 0; step < 50; ++step)
        EXPECT_EQ(sample_once(s, {-kInf, -kInf, 4.0f, -kInf}, row_for(p, 1, step)), 2);
    // NaN logits are never drawn; the rest are.
    const auto c = draw_counts({kNan, 0.0f, kNan, 0.0f}, p, 2000, 13);
    EXPECT_EQ(c.size(), 2u);
    EXPECT_TRUE(c.count(1) && c.count(3));
    // +inf logits: exactly those, evenly.
    const auto ci = draw_counts({kInf, 100.0f, kInf, 0.0f}, p, 2000, 14);
    EXPECT_EQ(ci.size(), 2u);
    EXPECT_NEAR(ci.at(0), 1000, 150);
    // Nothing usable: a clear error, greedy or not.
    std::vector<float> dead = {kNan, -kInf, kNan};
    EXPECT_THROW(s.sample(dead.data(), 3, row_for(p, 1, 1)), Error);
    SamplingParams g;
    g.temperature = 0;
    dead = {kNan, -kInf, kNan};
    EXPECT_THROW(s.sample(dead.data(), 3, row_for(g, 1, 1)), Error);
    try {
        dead = {kNan, kNan};
        s.sample(dead.data(), 2, row_for(p, 1, 1));
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("NaN or -inf"), std::string::npos);
    }
    // A NaN temperature poisons every logit: the same error, not a random token.
    SamplingParams nan_t;
    nan_t.temperature = kNan;
    std::vector<float> fine = {1.0f, 2.0f};
    EXPECT_THROW(s.sample(fine.data(), 2, row_for(nan_t, 1, 1)), Error);
    // Missing parameters or an empty row.
    SamplingRow none;
    EXPECT_THROW(s.sample(fine.data(), 2, none), Error);
    EXPECT_THROW(s.sample(fine.data(), 0, row_for(p, 1, 1)), Error);
    // A one-token vocabulary.
    EXPECT_EQ(sample_once(s, {-3.0f}, row_for(p, 1, 1)), 0);
}

TEST(SamplingParams, Validation) {
    SamplingParams p;
    EXPECT_NO_THROW(validate(p));
    auto fails = [](auto mutate, const char* what) {
        SamplingParams q;
        mutate(q);
        try {
            validate(q);
            ADD_FAILURE() << what << " was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    fails([](SamplingParams& q) { q.temperature = -1; }, "temperature");
    fails([](SamplingParams& q) { q.temperature = kNan; }, "temperature");
    fails([](SamplingParams& q) { q.top_k = -1; }, "top_k");
    fails([](SamplingParams& q) { q.top_p = 1.5f; }, "top_p");
    fails([](SamplingParams& q) { q.min_p = -0.1f; }, "min_p");
    fails([](SamplingParams& q) { q.repetition_penalty = 0; }, "repetition_penalty");
    fails([](SamplingParams& q) { q.presence_penalty = 3; }, "presence_penalty");
    fails([](SamplingParams& q) { q.frequency_penalty = kNan; }, "frequency_penalty");
    StopConditions st;
    EXPECT_NO_THROW(validate(st));
    st.max_tokens = 0;
    EXPECT_THROW(validate(st), Error);
    st.max_tokens = 5;
    st.stop_strings = {"ok", ""};
    EXPECT_THROW(validate(st), Error);
}

TEST(FinishReason, Names) {
    EXPECT_STREQ(finish_reason_name(FinishReason::Eos), "stop");
    EXPECT_STREQ(finish_reason_name(FinishReason::StopString), "stop_string");
    EXPECT_STREQ(finish_reason_name(FinishReason::Length), "length");
    EXPECT_STREQ(finish_reason_name(FinishReason::ContextFull), "context");
    EXPECT_STREQ(finish_reason_name(FinishReason::Cancelled), "cancelled");
    EXPECT_STREQ(finish_reason_name(FinishReason::Error), "error");
}

}  // namespace
}  // namespace folio
