// The device sampler against the CPU Sampler (engine/sampling/sampler.h) token for token: greedy,
// temperature, top-k, top-p, min-p, penalties, ties, infinities and NaN, over many seeds. Rows go
// through pack_step as in the backend, so the penalty id lists are covered too.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/sampling/sampler.h"
#include "kernels/sampling.h"
#include "kernels/step_inputs.h"
#include "support/simt_test_util.h"

namespace folio::cuda {
namespace {

using test::DeviceArray;

struct Case {
    SamplingParams params;
    std::vector<int32_t> prompt, output;
};

std::vector<Case> cases() {
    std::vector<Case> v;
    auto add = [&](float t, int k, float p, float min_p, float rep = 1.0f, float pres = 0.0f, float freq = 0.0f) {
        Case c;
        c.params.temperature = t;
        c.params.top_k = k;
        c.params.top_p = p;
        c.params.min_p = min_p;
        c.params.repetition_penalty = rep;
        c.params.presence_penalty = pres;
        c.params.frequency_penalty = freq;
        c.prompt = {3, 17, 17, 42, 99, 5};
        c.output = {42, 7, 7, 7, 250, 3};
        v.push_back(c);
    };
    add(0.0f, 0, 1.0f, 0.0f);               // greedy
    add(1.0f, 0, 1.0f, 0.0f);               // plain sampling
    add(0.7f, 0, 1.0f, 0.0f);
    add(1.0f, 1, 1.0f, 0.0f);               // top-k 1 = greedy
    add(1.0f, 5, 1.0f, 0.0f);
    add(1.3f, 50, 1.0f, 0.0f);
    add(1.0f, 0, 0.9f, 0.0f);               // top-p
    add(1.0f, 0, 0.5f, 0.0f);
    add(1.0f, 0, 0.0f, 0.0f);               // top-p 0: the best only
    add(1.0f, 0, 1.0f, 0.05f);              // min-p
    add(0.8f, 0, 1.0f, 0.3f);
    add(1.0f, 0, 1.0f, 1.5f);               // min-p above 1: the best only
    add(0.9f, 40, 0.95f, 0.02f);            // all three
    add(1.0f, 0, 1.0f, 0.0f, 1.3f);         // repetition penalty
    add(0.0f, 0, 1.0f, 0.0f, 2.0f);         // greedy after a repetition penalty
    add(1.0f, 0, 1.0f, 0.0f, 1.0f, 0.5f, 0.3f);  // presence and frequency
    add(0.7f, 20, 0.9f, 0.0f, 1.2f, 0.2f, 0.1f);
    return v;
}

// Logits with a spread like a language model's, optionally coarsely rounded (many exact ties) and
// with special values.
std::vector<float> make_logits(int vocab, uint64_t seed, bool ties, bool specials) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> n(0.0f, 2.5f);
    std::vector<float> l(static_cast<size_t>(vocab));
    for (auto& x : l) x = ties ? std::round(n(rng) * 2.0f) / 2.0f : n(rng);
    if (specials) {
        l[size_t(vocab / 3)] = NAN;
        l[size_t(vocab / 2)] = -INFINITY;
        l[1] = -INFINITY;
    }
    return l;
}

// Samples `rows` through pack_step + the device kernels.
std::vector<int32_t> device_sample(const std::vector<float>& logits, int vocab, const std::vector<SamplingRow>& rows) {
    const int R = int(rows.size());
    ForwardBatch batch;
    for (int r = 0; r < R; ++r) {
        SeqSlice s;
        s.token_offset = r;
        s.num_tokens = 1;
        s.num_blocks = 1;
        s.block_table_offset = r;
        s.want_logits = true;
        batch.seqs.push_back(s);
        batch.tokens.push_back(0);
        batch.block_tables.push_back(0);
    }
    KvLayout layout{1, 1, 8, 16, 4};
    StepCapacity cap;
    cap.max_tokens = R;
    cap.max_seqs = R;
    cap.max_blocks_per_seq = 4;
    cap.max_tiles = 4;
    cap.max_penalty_ids = 64 * R;
    StepInputs in(cap);
    const StepCounts c = pack_step(batch, &rows, layout, vocab, PackOptions{}, in);
    in.upload(c, nullptr);
    DeviceArray<float> dl(logits);
    DeviceArray<int32_t> out(static_cast<size_t>(R));
    out.poison();
    if (c.num_penalty_ids > 0) apply_penalties(dl.get(), vocab, R, in.d_sampling(), in.d_penalty_ids(), in.d_penalty_counts(), nullptr);
    sample_tokens(dl.get(), vocab, R, in.d_sampling(), out.get(), nullptr);
    return out.download();
}

void check_against_cpu(int vocab, bool ties, bool specials, int draws_per_case, uint64_t seed) {
    const auto cs = cases();
    std::vector<SamplingRow> rows;
    std::vector<float> logits;
    std::vector<int32_t> expect;
    Sampler cpu;
    for (size_t ci = 0; ci < cs.size(); ++ci)
        for (int d = 0; d < draws_per_case; ++d) {
            const auto l = make_logits(vocab, seed + ci * 1000 + uint64_t(d), ties, specials);
            SamplingRow row;
            row.params = &cs[ci].params;
            row.prompt_ids = cs[ci].prompt.data();
            row.num_prompt_ids = int(cs[ci].prompt.size());
            row.output_ids = cs[ci].output.data();
            row.num_output_ids = int(cs[ci].output.size());
            row.seed = seed * 31 + ci;
            row.step = uint64_t(d);
            auto copy = l;
            expect.push_back(cpu.sample(copy.data(), vocab, row));
            rows.push_back(row);
            logits.insert(logits.end(), l.begin(), l.end());
        }
    const auto got = device_sample(logits, vocab, rows);
    for (size_t r = 0; r < rows.size(); ++r) {
        const auto& p = *rows[r].params;
        EXPECT_EQ(got[r], expect[r]) << "row " << r << ": temperature " << p.temperature << " top_k " << p.top_k << " top_p "
                                     << p.top_p << " min_p " << p.min_p << " penalties " << p.repetition_penalty << "/"
                                     << p.presence_penalty << "/" << p.frequency_penalty << " step " << rows[r].step;
    }
}

TEST(SimtSampling, MatchesTheCpuSamplerTokenForToken) { check_against_cpu(1000, false, false, 6, 1); }

TEST(SimtSampling, TiesBreakByLowerIdAndSpecialValuesAreSkipped) {
    // Every schedule: lanes of a warp reach shared memory in a different order each time.
    test::for_each_schedule([](const char*) { check_against_cpu(777, true, true, 2, 2); });
}

TEST(SimtSampling, InfiniteLogitsAndUnusableRows) {
    const int vocab = 300;
    SamplingParams sp;  // temperature 1
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    std::vector<float> l(size_t(vocab) * 3, 0.5f);
    l[7] = INFINITY;
    l[200] = INFINITY;  // two +inf: each drawn with probability 1/2, as on the CPU
    for (int i = 0; i < vocab; ++i) l[size_t(vocab + i)] = NAN;  // nothing usable
    for (int i = 0; i < vocab; ++i) l[size_t(2 * vocab + i)] = -INFINITY;
    std::vector<SamplingRow> rows(3);
    rows[0].params = &sp;
    rows[0].seed = 5;
    rows[1].params = &greedy;
    rows[2].params = &sp;
    const auto got = device_sample(l, vocab, rows);
    Sampler cpu;
    auto row0 = std::vector<float>(l.begin(), l.begin() + vocab);
    EXPECT_EQ(got[0], cpu.sample(row0.data(), vocab, rows[0]));
    EXPECT_EQ(got[1], -1);
    EXPECT_EQ(got[2], -1);
}

TEST(SimtSampling, DrawsFollowTheDistribution) {
    // Many seeds on one row: the empirical frequencies of a 4-token distribution.
    const int vocab = 4;
    const std::vector<float> probs = {0.5f, 0.25f, 0.15f, 0.10f};
    std::vector<float> one;
    for (float p : probs) one.push_back(std::log(p));
    SamplingParams sp;
    const int n = 300;  // fixed seeds: the frequencies are deterministic
    std::vector<SamplingRow> rows(static_cast<size_t>(n));
    std::vector<float> logits;
    for (int i = 0; i < n; ++i) {
        rows[size_t(i)].params = &sp;
        rows[size_t(i)].seed = 1000 + uint64_t(i);
        logits.insert(logits.end(), one.begin(), one.end());
    }
    const auto got = device_sample(logits, vocab, rows);
    std::vector<int> count(4, 0);
    for (int id : got) {
        ASSERT_GE(id, 0);
        ASSERT_LT(id, 4);
        count[size_t(id)]++;
    }
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(double(count[size_t(i)]) / n, probs[size_t(i)], 0.06) << "token " << i;
}

}  // namespace
}  // namespace folio::cuda
