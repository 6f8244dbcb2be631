// The engine on a sliding-window model (stories260K run as Mistral with a window of 32, blocks of
// 16) generating far past the window: releasing the blocks that leave the window changes no token,
// keeps each sequence's blocks bounded by the window, and lets a pool too small for the whole
// conversation (but big enough for the window) finish it, also with preemption and prefix hits.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "engine/core/error.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/model/model.h"
#include "engine/frontdoor/sync_engine.h"
#include "tests/support/fixtures.h"
#include "tests/support/request_outcomes.h"

namespace folio {
namespace {

constexpr int kWindow = 32, kBlock = 16;
constexpr int kMaxHeld = kWindow / kBlock + 2;

std::shared_ptr<const Model> windowed_model() {
    static std::shared_ptr<const Model> m = [] {
        std::unique_ptr<Model> model = load_model(test::fixture_path("models/stories260K"));
        model->config.architecture = "MistralForCausalLM";  // the same network; its window applies
        model->config.sliding_window = kWindow;
        return std::shared_ptr<const Model>(std::move(model));
    }();
    return m;
}

EngineOptions options(int64_t blocks, bool free_blocks) {
    EngineOptions o;
    o.block_size = kBlock;
    o.num_kv_blocks = blocks;
    o.max_num_seqs = 4;
    o.max_num_batched_tokens = 64;
    o.free_out_of_window_blocks = free_blocks;
    o.backend.num_threads = 1;
    return o;
}

std::unique_ptr<SyncEngine> make_core(const EngineOptions& o) {
    return std::make_unique<SyncEngine>(windowed_model(), make_cpu_backend(*windowed_model(), o.backend), o);
}

std::vector<int32_t> prompt(int n, int salt) {
    std::vector<int32_t> p{1};
    for (int i = 1; i < n; ++i) p.push_back(int32_t(3 + (i * 37 + salt * 53) % 400));
    return p;
}

using Outcomes = std::map<RequestId, test::RequestOutcome>;

// Runs to the end; after every step the scheduler's invariants hold and `on_step` sees the core.
template <typename F>
Outcomes run_checked(SyncEngine& core, F on_step, Outcomes out = {}) {
    return test::drain(
        core,
        [&](SyncEngine& c) {
            c.scheduler().check_invariants();
            on_step(c);
        },
        std::move(out));
}

Outcomes run_checked(SyncEngine& core, Outcomes out = {}) {
    return run_checked(core, [](const SyncEngine&) {}, std::move(out));
}

TEST(EngineSlidingWindow, FreeingBlocksChangesNoTokenAndBoundsTheBlocksHeld) {
    const Request r = fixed_length_greedy_request(prompt(40, 1), 150);  // 190 tokens: six windows
    auto held_all = make_core(options(64, false));
    const RequestId a = held_all->add(r);
    int most_without = 0;
    auto ref = run_checked(*held_all, [&](const SyncEngine& c) { most_without = std::max(most_without, c.scheduler().kv().info(a).blocks); });
    ASSERT_EQ(ref[a].end.reason, FinishReason::Length) << ref[a].end.message;
    ASSERT_EQ(ref[a].ids.size(), 150u);
    EXPECT_EQ(most_without, 12);  // the whole conversation, 190 / 16 blocks

    auto freeing = make_core(options(64, true));
    const RequestId b = freeing->add(r);
    int most = 0, steps = 0;
    auto got = run_checked(*freeing, [&](const SyncEngine& c) {
        const KvSequenceInfo info = c.scheduler().kv().info(b);
        most = std::max(most, info.blocks);
        if (info.tokens > 0) {
            EXPECT_LE(info.blocks, kMaxHeld) << "at " << info.tokens << " tokens";
        }
        EXPECT_EQ(c.stats().kv.blocks_used, info.blocks);
        ++steps;
    });
    ASSERT_EQ(got[b].end.reason, FinishReason::Length) << got[b].end.message;
    EXPECT_EQ(got[b].ids, ref[a].ids);
    EXPECT_LE(most, kMaxHeld);
    EXPECT_GE(most, 2);
    EXPECT_GT(steps, 100);
}

TEST(EngineSlidingWindow, APoolOfTheWindowFinishesALongerConversation) {
    const Request r = fixed_length_greedy_request(prompt(40, 2), 150);
    auto big = make_core(options(64, false));
    const RequestId a = big->add(r);
    const std::vector<int32_t> want = run_checked(*big)[a].ids;
    ASSERT_EQ(want.size(), 150u);

    // Four blocks hold 64 tokens, a third of the conversation: holding it all, the engine must stop.
    auto held_all = make_core(options(4, false));
    const RequestId b = held_all->add(r);
    auto cut = run_checked(*held_all);
    EXPECT_EQ(cut[b].end.reason, FinishReason::ContextFull);
    EXPECT_LT(cut[b].ids.size(), 150u);

    auto freeing = make_core(options(4, true));
    const RequestId c = freeing->add(r);
    auto got = run_checked(*freeing);
    EXPECT_EQ(got[c].end.reason, FinishReason::Length) << got[c].end.message;
    EXPECT_EQ(got[c].ids, want);
    EXPECT_EQ(freeing->stats().preemptions, 0);
}

TEST(EngineSlidingWindow, AMemoryBudgetForTheWindowIsEnoughToStart) {
    // About eight blocks' worth of bytes: a full 512-token context needs 32 blocks, the window 3.
    const ModelConfig& c = windowed_model()->config;
    EngineOptions o = options(0, false);
    o.kv_cache_bytes = 8ull * 2 * uint64_t(c.num_layers) * uint64_t(c.num_kv_heads) * uint64_t(c.head_dim) * kBlock * sizeof(float);
    EXPECT_THROW(make_core(o), Error);
    o.free_out_of_window_blocks = true;
    auto core = make_core(o);
    EXPECT_GE(core->num_kv_blocks(), 3);
    EXPECT_LT(core->num_kv_blocks(), 32);
    const RequestId id = core->add(fixed_length_greedy_request(prompt(40, 6), 100));
    auto got = run_checked(*core);
    EXPECT_EQ(got[id].end.reason, FinishReason::Length) << got[id].end.message;
}

TEST(EngineSlidingWindow, PromptLongerThanThePoolIsAdmittedInChunks) {
    const Request r = fixed_length_greedy_request(prompt(150, 3), 20);  // 150 prompt tokens, 64-slot pool
    auto big = make_core(options(64, false));
    const RequestId a = big->add(r);
    const std::vector<int32_t> want = run_checked(*big)[a].ids;
    auto freeing = make_core(options(4, true));
    const RequestId c = freeing->add(r);
    auto got = run_checked(*freeing);
    EXPECT_EQ(got[c].end.reason, FinishReason::Length) << got[c].end.message;
    EXPECT_EQ(got[c].ids, want);
}

TEST(EngineSlidingWindow, PreemptionAndPrefixHitsInASmallPoolKeepEveryToken) {
    // Three conversations, two sharing a 64-token prompt, in a pool of seven blocks: at most two fit
    // their windows at once, so the newest is preempted and recomputed, and the shared prompt's
    // released blocks serve the later one from the prefix cache.
    const std::vector<int32_t> shared = prompt(64, 4);
    std::vector<int32_t> p2 = shared;
    p2.push_back(7);
    const Request r1 = fixed_length_greedy_request(shared, 90), r2 = fixed_length_greedy_request(p2, 90),
                  r3 = fixed_length_greedy_request(prompt(30, 5), 90);
    std::vector<std::vector<int32_t>> alone;
    for (const Request& r : {r1, r2, r3}) {
        auto core = make_core(options(64, false));
        const RequestId id = core->add(r);
        alone.push_back(run_checked(*core)[id].ids);
    }
    auto core = make_core(options(7, true));
    const RequestId i1 = core->add(r1);
    Outcomes first;
    absorb(core->step(), first);  // r1's prompt is computed (and cached) before r2 arrives
    const RequestId i2 = core->add(r2), i3 = core->add(r3);
    auto got = run_checked(*core, std::move(first));
    const RequestId ids[3] = {i1, i2, i3};
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(got[ids[k]].end.reason, FinishReason::Length) << k << ": " << got[ids[k]].end.message;
        EXPECT_EQ(got[ids[k]].ids.size(), 90u);
    }
    EXPECT_EQ(got[i1].ids, alone[0]);
    EXPECT_EQ(got[i2].ids, alone[1]);
    EXPECT_EQ(got[i3].ids, alone[2]);
    EXPECT_GT(core->stats().preemptions, 0);
    EXPECT_GT(core->stats().kv.prefix_hit_tokens, 0);
}

}  // namespace
}  // namespace folio
