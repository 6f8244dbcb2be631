// n replies and logprobs on a real model (stories260K) and the CPU backend's exact mode: the replies
// equal separate requests (greedy, and seeded with seed + i), and the logprobs the engine reports
// equal a double-precision log_softmax of the logits the backend gives for the same context.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "engine/cpu/cpu_backend.h"
#include "engine/frontdoor/sync_engine.h"
#include "engine/model/model.h"
#include "tests/engine/cpu/chunked_run.h"
#include "tests/support/exact_engine.h"
#include "tests/support/request_outcomes.h"

namespace folio {
namespace {

using test::stories260k;

std::unique_ptr<SyncEngine> make_engine() {
    EngineOptions o;
    o.num_kv_blocks = 256;
    return std::make_unique<SyncEngine>(stories260k(), test::exact_cpu_backend(*stories260k()), o);
}

Request sampled(float temperature, std::optional<uint64_t> seed, int n, int logprobs = -1) {
    Request r;
    r.prompt_text = "Once upon a time there was a little girl named Lily. She";
    r.sampling.temperature = temperature;
    r.sampling.seed = seed;
    r.sampling.logprobs = logprobs;
    r.stop.max_tokens = 20;
    r.stop.ignore_eos = true;
    r.n = n;
    return r;
}

TEST(EngineRepliesModel, RepliesEqualSeparateRequestsGreedyAndSeeded) {
    for (const float temperature : {0.0f, 1.0f}) {
        auto e = make_engine();
        const RequestId first = e->add(sampled(temperature, 99, 3));
        auto together = test::drain(*e);
        std::vector<std::vector<int32_t>> texts;
        for (int i = 0; i < 3; ++i) {
            auto alone = make_engine();
            const RequestId id = alone->add(sampled(temperature, 99 + uint64_t(i), 1));
            auto out = test::drain(*alone);
            EXPECT_EQ(together[first + RequestId(i)].ids, out[id].ids) << "temperature " << temperature << " reply " << i;
            EXPECT_EQ(together[first + RequestId(i)].text, out[id].text);
            texts.push_back(out[id].ids);
        }
        if (temperature > 0) EXPECT_TRUE(texts[0] != texts[1] || texts[1] != texts[2]) << "sampled replies should differ";
        else EXPECT_TRUE(texts[0] == texts[1] && texts[1] == texts[2]);
    }
}

TEST(EngineRepliesModel, LogprobsAreTheLogSoftmaxOfTheBackendsLogits) {
    auto e = make_engine();
    const RequestId first = e->add(sampled(0.8f, 5, 2, 5));
    std::map<RequestId, std::vector<Event>> tokens;
    std::vector<int32_t> prompt;
    while (e->has_unfinished()) {
        for (Event& ev : e->step()) {
            if (ev.kind == Event::Kind::Token) tokens[ev.id].push_back(ev);
            else if (!ev.prompt_ids.empty()) prompt = ev.prompt_ids;
        }
    }
    ASSERT_FALSE(prompt.empty());
    const int vocab = stories260k()->config.vocab_size;
    auto backend = test::exact_cpu_backend(*stories260k());
    KvLayout layout{stories260k()->config.num_layers, stories260k()->config.num_kv_heads, stories260k()->config.head_dim, 16, 64};
    backend->allocate_kv(layout);
    for (RequestId id : {first, first + 1}) {
        ASSERT_EQ(tokens[id].size(), 20u) << id;
        test::PagedSeq seq;
        seq.tokens = prompt;
        for (const Event& ev : tokens[id]) seq.tokens.push_back(ev.token);
        for (int b = 0; b < 64; ++b) seq.blocks.push_back(b);
        const std::vector<float> logits = test::run_chunked(*backend, vocab, {seq}, 1)[0];  // a row per position
        for (size_t k = 0; k < tokens[id].size(); ++k) {
            const Event& ev = tokens[id][k];
            ASSERT_TRUE(ev.logprobs.has_value());
            const float* row = logits.data() + (prompt.size() - 1 + k) * size_t(vocab);
            double max = -INFINITY, sum = 0;
            for (int i = 0; i < vocab; ++i) max = std::max(max, double(row[i]));
            for (int i = 0; i < vocab; ++i) sum += std::exp(double(row[i]) - max);
            const double log_z = max + std::log(sum);
            EXPECT_NEAR(ev.logprobs->logprob, double(row[ev.token]) - log_z, 1e-5) << id << " token " << k;
            ASSERT_EQ(ev.logprobs->top.size(), 5u);
            EXPECT_NEAR(ev.logprobs->top[0].logprob, max - log_z, 1e-5);
            int greater = 0;
            for (int i = 0; i < vocab; ++i) greater += row[i] > row[ev.token];
            EXPECT_EQ(ev.logprobs->rank, 1 + greater);
        }
    }
}

}  // namespace
}  // namespace folio
