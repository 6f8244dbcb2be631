// The engine core alone, on token ids, with a model that has no tokenizer at all: no text goes in or
// comes out. Which ids end a request (the request's end ids, ignore_eos, max_tokens, the context),
// rejections, cancel versus abort, forks, and timings counted from the caller's arrival time.
#include "engine/runtime/engine_core.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "tests/engine/runtime/fake_backend.h"

namespace folio {
namespace {

using test::Context;
using test::FakeBackend;

std::shared_ptr<Model> model_without_tokenizer(int context = 256) {
    auto m = test::fake_model(context);
    m->tokenizer.reset();
    return m;
}

std::unique_ptr<EngineCore> make_core(FakeBackend::NextFn next = test::hashed_letter, int context = 256) {
    EngineOptions o;
    o.num_kv_blocks = 64;
    return std::make_unique<EngineCore>(model_without_tokenizer(context), std::make_unique<FakeBackend>(300, std::move(next)), o);
}

// The ids a request yields alone under the fake model.
std::vector<int32_t> alone(std::vector<int32_t> tokens, int n) {
    std::vector<int32_t> out;
    while (int(out.size()) < n) {
        Context ctx;
        for (size_t p = 0; p < tokens.size(); ++p) ctx.push_back({tokens[p], int32_t(p)});
        out.push_back(test::hashed_letter(ctx));
        tokens.push_back(out.back());
    }
    return out;
}

CoreRequest greedy(std::vector<int32_t> prompt, int max_tokens) {
    CoreRequest r;
    r.prompt_ids = std::move(prompt);
    r.sampling.temperature = 0;
    r.max_tokens = max_tokens;
    r.eos_token_ids = {2};
    return r;
}

// Scripted model: the id at each generated position, from a list (then 50 forever).
FakeBackend::NextFn scripted(std::vector<int32_t> ids, int prompt_len) {
    return [ids, prompt_len](const Context& ctx) {
        const size_t i = ctx.size() - size_t(prompt_len);
        return i < ids.size() ? ids[i] : int32_t(50);
    };
}

struct Outcome {
    std::vector<int32_t> ids;
    std::vector<CoreEvent> events;
    CoreEvent end;
    int ends = 0;
};

std::map<RequestId, Outcome> drain(EngineCore& core, std::map<RequestId, Outcome> out = {}) {
    while (core.has_unfinished() || core.has_pending_events()) {
        for (CoreEvent& e : core.step()) {
            Outcome& r = out[e.id];
            EXPECT_EQ(r.ends, 0) << "event after the end of " << e.id;
            if (e.token >= 0) r.ids.push_back(e.token);
            if (e.finished) {
                ++r.ends;
                r.end = e;
            }
            r.events.push_back(std::move(e));
        }
    }
    return out;
}

TEST(EngineCoreIds, RunsOnIdsAloneWithAModelThatHasNoTokenizer) {
    auto core = make_core();
    const std::vector<int32_t> prompt{1, 5, 6, 7, 8};
    const RequestId id = core->add(greedy(prompt, 6));
    auto out = drain(*core);
    const Outcome& r = out[id];
    EXPECT_EQ(r.ids, alone(prompt, 6));
    ASSERT_EQ(r.events.size(), 6u);  // one per token; the last one also ends the request
    EXPECT_EQ(r.ends, 1);
    EXPECT_TRUE(r.end.finished);
    EXPECT_EQ(r.end.reason, FinishReason::Length);
    EXPECT_EQ(r.end.token, r.ids.back());
    EXPECT_EQ(r.end.prompt_ids, prompt);
    EXPECT_EQ(r.end.timings.generated_tokens, 6);
    for (size_t i = 0; i + 1 < r.events.size(); ++i) {
        EXPECT_FALSE(r.events[i].finished);
        EXPECT_EQ(r.events[i].timings.generated_tokens, int(i) + 1);  // timings as of each token
        EXPECT_TRUE(r.events[i].message.empty());
    }
    EXPECT_EQ(core->stats().total_generated_tokens, 6);
}

TEST(EngineCoreIds, TheRequestsEndIdsDecideWhereItEnds) {
    const std::vector<int32_t> script{10, 11, 2, 12, 13, 14};
    {  // EOS: the end id comes as the last event's token
        auto core = make_core(scripted(script, 3));
        const RequestId id = core->add(greedy({1, 5, 6}, 50));
        auto out = drain(*core);
        EXPECT_EQ(out[id].ids, (std::vector<int32_t>{10, 11, 2}));
        EXPECT_EQ(out[id].end.reason, FinishReason::Eos);
        EXPECT_EQ(out[id].end.token, 2);
    }
    {  // ignore_eos: the EOS is an ordinary id, max_tokens ends it
        auto core = make_core(scripted(script, 3));
        CoreRequest r = greedy({1, 5, 6}, 5);
        r.ignore_eos = true;
        const RequestId id = core->add(r);
        auto out = drain(*core);
        EXPECT_EQ(out[id].ids, (std::vector<int32_t>{10, 11, 2, 12, 13}));
        EXPECT_EQ(out[id].end.reason, FinishReason::Length);
    }
    {  // stop ids end it even with ignore_eos
        auto core = make_core(scripted(script, 3));
        CoreRequest r = greedy({1, 5, 6}, 50);
        r.ignore_eos = true;
        r.stop_token_ids = {12};
        const RequestId id = core->add(r);
        auto out = drain(*core);
        EXPECT_EQ(out[id].ids, (std::vector<int32_t>{10, 11, 2, 12}));
        EXPECT_EQ(out[id].end.reason, FinishReason::Eos);
    }
    {  // an end id as the last allowed token is still an end id
        auto core = make_core(scripted(script, 3));
        const RequestId id = core->add(greedy({1, 5, 6}, 3));
        EXPECT_EQ(drain(*core)[id].end.reason, FinishReason::Eos);
    }
    {  // no end ids given: nothing ends it early (the caller says which ids end a request)
        auto core = make_core(scripted(script, 3));
        CoreRequest r = greedy({1, 5, 6}, 4);
        r.eos_token_ids.clear();
        const RequestId id = core->add(r);
        auto out = drain(*core);
        EXPECT_EQ(out[id].ids.size(), 4u);
        EXPECT_EQ(out[id].end.reason, FinishReason::Length);
    }
    {  // the context: the token sampled into its last position is the last
        auto core = make_core(test::hashed_letter, /*context=*/10);
        const RequestId id = core->add(greedy({1, 5, 6, 7, 8, 9, 10}, 100));
        auto out = drain(*core);
        EXPECT_EQ(out[id].ids.size(), 3u);
        EXPECT_EQ(out[id].end.reason, FinishReason::ContextFull);
    }
}

TEST(EngineCoreIds, RejectsBadRequestsWithOneErrorEventEach) {
    auto core = make_core();
    CoreRequest bad_temp = greedy({1, 5}, 4);
    bad_temp.sampling.top_p = 2;
    const std::vector<std::pair<RequestId, std::string>> cases = {
        {core->add(greedy({}, 4)), "empty"},
        {core->add(greedy({1, 300}, 4)), "prompt token 1 is id 300, outside the model's vocabulary of 300"},
        {core->add(greedy({1, -1}, 4)), "outside the model's vocabulary"},
        {core->add(greedy({1, 5}, 0)), "max_tokens"},
        {core->add(bad_temp), "top_p"},
        {core->add(greedy(std::vector<int32_t>(257, 5), 4)), "context holds 256"},
    };
    auto out = drain(*core);
    for (const auto& [id, phrase] : cases) {
        ASSERT_EQ(out[id].ends, 1) << phrase;
        EXPECT_TRUE(out[id].ids.empty());
        EXPECT_EQ(out[id].end.reason, FinishReason::Error);
        EXPECT_NE(out[id].end.message.find(phrase), std::string::npos) << out[id].end.message;
    }
    EXPECT_EQ(out[cases[1].first].end.prompt_ids, (std::vector<int32_t>{1, 300}));
    EXPECT_EQ(out[cases[5].first].end.prompt_ids.size(), 257u);
    // Ids chosen by the caller: zero, or one in use, is refused (the request holding it goes on).
    core->add(0, greedy({1, 5}, 1));
    core->add(9, greedy({1, 5}, 3));
    core->add(9, greedy({1, 6}, 1));
    const auto events = core->step();
    ASSERT_GE(events.size(), 2u);
    for (int i : {0, 1}) {
        EXPECT_EQ(events[i].id, i == 0 ? 0u : 9u);
        EXPECT_EQ(events[i].reason, FinishReason::Error);
        EXPECT_NE(events[i].message.find("zero or already in use"), std::string::npos) << events[i].message;
    }
    EXPECT_TRUE(core->has(9));
}

TEST(EngineCoreIds, CancelEndsWithAnEventAbortWithout) {
    auto core = make_core();
    const RequestId a = core->add(greedy({1, 5, 6}, 100));
    const RequestId b = core->add(greedy({1, 7, 8}, 100));
    core->step();
    core->step();
    core->cancel(a);
    core->abort(b);
    EXPECT_FALSE(core->has(a));
    EXPECT_FALSE(core->has(b));
    EXPECT_EQ(core->stats().kv.blocks_used, 0);
    core->abort(b);  // unknown by now: ignored
    const auto events = core->step();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].id, a);
    EXPECT_EQ(events[0].reason, FinishReason::Cancelled);
    EXPECT_EQ(events[0].token, -1);
    EXPECT_FALSE(core->has_unfinished());
}

TEST(EngineCoreIds, AForkCountsItsInheritedTokensTowardsMaxTokens) {
    auto core = make_core();
    const std::vector<int32_t> prompt{1, 5, 6, 7};
    const RequestId p = core->add(greedy(prompt, 10));
    std::map<RequestId, Outcome> out;
    for (int i = 0; i < 4; ++i)
        for (CoreEvent& e : core->step()) out[e.id].ids.push_back(e.token);
    ASSERT_EQ(core->num_generated(p), 4);
    SamplingParams g;
    g.temperature = 0;
    EXPECT_FALSE(core->fork(p, p, g));  // the child id is taken
    EXPECT_FALSE(core->fork(999, 1000, g));
    ASSERT_TRUE(core->fork(p, 77, g));
    out = drain(*core, std::move(out));
    EXPECT_EQ(out[p].ids, alone(prompt, 10));
    auto ctx = prompt;
    ctx.insert(ctx.end(), out[p].ids.begin(), out[p].ids.begin() + 4);
    EXPECT_EQ(out[77].ids, alone(ctx, 6));
    EXPECT_EQ(out[77].end.reason, FinishReason::Length);
    EXPECT_EQ(out[77].end.prompt_ids, prompt);
}

TEST(EngineCoreIds, QueueAndFirstTokenTimesCountFromTheCallersArrival) {
    auto core = make_core();
    CoreRequest r = greedy({1, 5, 6}, 2);
    r.arrival = std::chrono::steady_clock::now() - std::chrono::milliseconds(80);  // the front door's time
    const RequestId id = core->add(r);
    auto out = drain(*core);
    EXPECT_GE(out[id].end.timings.queue_ms, 80);
    EXPECT_GE(out[id].end.timings.ttft_ms, out[id].end.timings.queue_ms);
    EXPECT_EQ(out[id].end.timings.input_ms, 0);  // the front door's to fill in
}

}  // namespace
}  // namespace folio
