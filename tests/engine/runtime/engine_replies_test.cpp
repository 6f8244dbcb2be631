// n replies at admission (CoreRequest::n) and logprobs through the engine core, on the fake backend
// (whose logits come from the context it reads back through the block tables, so a wrong shared
// block or copy-on-write would change the tokens).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "engine/runtime/engine_core.h"
#include "tests/engine/runtime/fake_backend.h"

namespace folio {
namespace {

using test::FakeBackend;

struct Replies {
    std::map<RequestId, std::vector<int32_t>> ids;
    std::map<RequestId, CoreEvent> ends;
    std::vector<CoreEvent> events;
};

Replies drain(EngineCore& core, Replies run = {}) {
    while (core.has_unfinished() || core.has_pending_events()) {
        for (CoreEvent& e : core.step()) {
            EXPECT_EQ(run.ends.count(e.id), 0u) << "event after the end of " << e.id;
            if (e.token >= 0) run.ids[e.id].push_back(e.token);
            if (e.finished) run.ends[e.id] = e;
            run.events.push_back(std::move(e));
        }
        core.scheduler().check_invariants();  // queues, sequences and block tables agree after every step
    }
    return run;
}

std::unique_ptr<EngineCore> make_core(int64_t blocks = 64, FakeBackend** backend = nullptr) {
    EngineOptions o;
    o.num_kv_blocks = blocks;
    auto b = std::make_unique<FakeBackend>(300);
    if (backend) *backend = b.get();
    return std::make_unique<EngineCore>(test::fake_model(256), std::move(b), o);
}

std::vector<int32_t> prompt_of(int n) {
    std::vector<int32_t> p;
    for (int i = 0; i < n; ++i) p.push_back(int32_t(3 + (i * 7) % 90));
    return p;
}

CoreRequest request(int prompt_len, int max_tokens, float temperature, int n) {
    CoreRequest r;
    r.prompt_ids = prompt_of(prompt_len);
    r.sampling.temperature = temperature;
    r.max_tokens = max_tokens;
    r.ignore_eos = true;
    r.n = n;
    return r;
}

TEST(EngineReplies, GreedyRepliesAreIdenticalAndShareThePromptsBlocks) {
    FakeBackend* backend = nullptr;
    auto core = make_core(64, &backend);
    core->add(10, request(40, 8, 0.0f, 3));  // 40 tokens: 2 full blocks of 16 and one partial
    Replies first;
    for (CoreEvent& e : core->step()) {  // the prefill: once, for all three
        first.ids[e.id].push_back(e.token);
        first.events.push_back(e);
    }
    EXPECT_EQ(first.ids.size(), 3u) << "each reply has its first token from the prefill step";
    ASSERT_EQ(backend->batch_tokens.size(), 1u);
    EXPECT_EQ(backend->batch_tokens[0], 40);
    const EngineStats st = core->stats();
    ASSERT_EQ(st.sequences.size(), 3u);
    for (const SequenceStats& s : st.sequences) {
        EXPECT_EQ(s.blocks, 3) << s.id;
        EXPECT_EQ(s.shared_blocks, 3) << s.id << ": the prompt's blocks are one physical copy";
    }
    EXPECT_EQ(st.kv.blocks_used, 3) << "three replies of a 3-block prompt hold 3 blocks, not 9";
    const Replies run = drain(*core, first);
    // Every later step decodes the three replies side by side, one token each.
    for (size_t i = 1; i < backend->batch_tokens.size(); ++i) EXPECT_EQ(backend->batch_tokens[i], 3);
    auto alone = make_core();
    alone->add(1, request(40, 8, 0.0f, 1));
    const Replies single = drain(*alone);
    ASSERT_EQ(run.ids.size(), 3u);
    for (RequestId id : {10, 11, 12}) {
        EXPECT_EQ(run.ids.at(id), single.ids.at(1)) << "reply " << id;
        EXPECT_EQ(run.ends.at(id).reason, FinishReason::Length);
        EXPECT_EQ(run.ends.at(id).timings.prompt_tokens, 40);
    }
    EXPECT_GT(core->stats().kv.cow_copies, 0) << "the partial prompt block is copied when the replies write into it";
    EXPECT_EQ(core->stats().kv.blocks_used, 0);
}

TEST(EngineReplies, SeededRepliesEqualSeparateRequestsWithSeedPlusIndex) {
    auto core = make_core();
    CoreRequest r = request(21, 12, 4.0f, 3);  // hot enough that replies differ
    r.sampling.seed = 1234;
    core->add(1, r);
    const Replies run = drain(*core);
    std::vector<std::vector<int32_t>> separate;
    for (int i = 0; i < 3; ++i) {
        auto c = make_core();
        CoreRequest s = request(21, 12, 4.0f, 1);
        s.sampling.seed = 1234 + uint64_t(i);
        c->add(1, s);
        separate.push_back(drain(*c).ids.at(1));
    }
    for (int i = 0; i < 3; ++i) EXPECT_EQ(run.ids.at(RequestId(1 + i)), separate[size_t(i)]) << "reply " << i;
    EXPECT_TRUE(separate[0] != separate[1] || separate[1] != separate[2]) << "the test needs replies that differ";
}

TEST(EngineReplies, CancellingTheFirstIdCancelsEveryReply) {
    for (int steps_before : {0, 1, 3}) {
        auto core = make_core();
        core->add(5, request(30, 50, 0.0f, 3));
        Replies run;
        for (int i = 0; i < steps_before; ++i)
            for (CoreEvent& e : core->step()) run.events.push_back(e);
        core->cancel(5);
        run = drain(*core, run);
        for (RequestId id : {5, 6, 7}) {
            ASSERT_EQ(run.ends.count(id), 1u) << id << " after " << steps_before << " steps";
            EXPECT_EQ(run.ends.at(id).reason, FinishReason::Cancelled);
        }
        EXPECT_EQ(core->stats().kv.blocks_used, 0);
        EXPECT_FALSE(core->has_unfinished());
    }
    // Another reply's id ends only that reply.
    auto core = make_core();
    core->add(5, request(30, 6, 0.0f, 3));
    core->step();
    core->cancel(6);
    const Replies run = drain(*core);
    EXPECT_EQ(run.ends.at(6).reason, FinishReason::Cancelled);
    EXPECT_EQ(run.ends.at(5).reason, FinishReason::Length);
    EXPECT_EQ(run.ends.at(7).reason, FinishReason::Length);
}

TEST(EngineReplies, AFullPoolPreemptsRepliesByTheSchedulersRules) {
    // 8 blocks of 16: the 20-token prompt holds 2; six replies growing to 52 tokens each cannot all
    // run at once, so the newest are preempted (recomputed later) and every reply still completes
    // with the tokens it has alone.
    auto core = make_core(8);
    core->add(1, request(20, 32, 0.0f, 6));
    const Replies run = drain(*core);
    auto alone = make_core();
    alone->add(1, request(20, 32, 0.0f, 1));
    const std::vector<int32_t> expect = drain(*alone).ids.at(1);
    for (RequestId id = 1; id <= 6; ++id) {
        EXPECT_EQ(run.ends.at(id).reason, FinishReason::Length) << id << ": " << run.ends.at(id).message;
        EXPECT_EQ(run.ids.at(id), expect) << id;
    }
    EXPECT_GT(core->stats().preemptions, 0);
    EXPECT_EQ(core->stats().kv.blocks_used, 0);
}

TEST(EngineReplies, APromptThePoolCannotHoldEndsEveryReplyWithTheReason) {
    auto core = make_core(4);  // 64 tokens of KV
    core->add(1, request(100, 4, 0.0f, 3));
    const Replies run = drain(*core);
    ASSERT_EQ(run.ends.size(), 3u);
    for (RequestId id = 1; id <= 3; ++id) {
        EXPECT_EQ(run.ends.at(id).reason, FinishReason::Error) << id;
        EXPECT_NE(run.ends.at(id).message.find("KV"), std::string::npos) << run.ends.at(id).message;
    }
    // And n out of range, or a reply id taken, is refused for every id.
    auto c2 = make_core();
    c2->add(2, request(10, 50, 0.0f, 1));
    c2->add(1, request(10, 4, 0.0f, 2));  // wants ids 1 and 2; 2 is taken
    c2->add(9, request(10, 4, 0.0f, 0));
    const Replies r2 = drain(*c2);
    EXPECT_EQ(r2.ends.at(1).reason, FinishReason::Error);
    EXPECT_NE(r2.ends.at(1).message.find("already in use"), std::string::npos) << r2.ends.at(1).message;
    EXPECT_EQ(r2.ends.at(2).reason, FinishReason::Length) << "the request holding id 2 runs on";
    EXPECT_NE(r2.ends.at(9).message.find("n (replies)"), std::string::npos) << r2.ends.at(9).message;
}

TEST(EngineReplies, LogprobsComeWithEveryTokenWhenAskedOnly) {
    auto core = make_core();
    CoreRequest r = request(10, 5, 0.0f, 2);
    r.sampling.logprobs = 3;
    core->add(1, r);
    core->add(3, request(10, 5, 0.0f, 1));
    const Replies run = drain(*core);
    // The fake model's logits: 10 at one id, 0 at the other 299.
    const double expect = 10.0 - std::log(std::exp(10.0) + 299.0);
    int with = 0;
    for (const CoreEvent& e : run.events) {
        if (e.token < 0) continue;
        if (e.id == 3) {
            EXPECT_FALSE(e.logprobs.has_value());
            continue;
        }
        ASSERT_TRUE(e.logprobs.has_value()) << e.id;
        ++with;
        EXPECT_NEAR(e.logprobs->logprob, expect, 1e-5);
        EXPECT_EQ(e.logprobs->rank, 1);
        ASSERT_EQ(e.logprobs->top.size(), 3u);
        EXPECT_EQ(e.logprobs->top[0].id, e.token);
        EXPECT_NEAR(e.logprobs->top[1].logprob, -std::log(std::exp(10.0) + 299.0), 1e-5);
        EXPECT_LT(e.logprobs->top[1].id, e.logprobs->top[2].id) << "ties: the lower id first";
    }
    EXPECT_EQ(with, 10);
}

}  // namespace
}  // namespace folio
