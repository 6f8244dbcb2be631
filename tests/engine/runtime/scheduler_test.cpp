#include "engine/sched/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "engine/core/error.h"
#include "tests/support/token_ids.h"

namespace folio {
namespace {

using test::toks;

// The next token of a context as a fake model would give it: a hash of every (token, position) pair
// (plus a per-request salt, so forks can diverge), so it changes if any KV slot is wrong.
int32_t next_token(const std::vector<std::pair<int32_t, int32_t>>& context, uint64_t salt) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ salt;
    for (const auto& [t, p] : context) {
        h ^= uint64_t(uint32_t(t)) * 0xff51afd7ed558ccdULL + uint64_t(uint32_t(p));
        h *= 0xc4ceb9fe1a85ec53ULL;
        h ^= h >> 29;
    }
    return int32_t(3 + h % 61);
}

// The first key a query at `pos` attends under a sliding window (0: none), as engine/cpu/ops.h.
int first_key(int pos, int window) { return window > 0 && pos >= window ? pos - window + 1 : 0; }

// What a request generates when it runs alone: the oracle every scheduled run must match. Under a
// sliding window the fake model sees only the window's keys.
std::vector<int32_t> reference(const std::vector<int32_t>& prompt, int max_tokens, uint64_t salt, int window = 0) {
    std::vector<int32_t> all = prompt;
    std::vector<int32_t> out;
    while (int(out.size()) < max_tokens) {
        std::vector<std::pair<int32_t, int32_t>> ctx;
        for (size_t p = size_t(first_key(int(all.size()) - 1, window)); p < all.size(); ++p) ctx.push_back({all[p], int32_t(p)});
        out.push_back(next_token(ctx, salt));
        all.push_back(out.back());
    }
    return out;
}

// Plays the engine and backend around a Scheduler: writes each chunk's KV into a shadow pool through
// the block tables, reads the whole context back through them to "sample", finishes requests at
// their max_tokens.
class Harness {
public:
    explicit Harness(const SchedulerConfig& cfg)
        : sched(cfg), bs_(cfg.block_size), window_(cfg.sliding_window), slots_(size_t(cfg.num_blocks * cfg.block_size), {-1, -1}) {}

    void add(SeqId id, std::vector<int32_t> prompt, int max_tokens, int priority = 0, uint64_t salt = 0) {
        sched.add(id, prompt, priority);
        priority_of[id] = priority;
        max_tokens_[id] = max_tokens;
        salt_[id] = salt;
        prompts_[id] = std::move(prompt);
        submitted_at_[id] = steps;
    }
    void cancel(SeqId id) {
        sched.remove(id);
        cancelled.insert(id);
    }
    void fork(SeqId parent, SeqId child, uint64_t salt) {
        sched.fork(parent, child);
        max_tokens_[child] = max_tokens_[parent];
        salt_[child] = salt;
        prompts_[child] = prompts_[parent];
    }

    // One engine step; returns the plan it ran.
    SchedulePlan step() {
        SchedulePlan plan = sched.schedule();
        const auto copies = sched.apply(plan);
        for (const auto& c : copies)
            std::copy_n(slots_.begin() + c.src * bs_, bs_, slots_.begin() + c.dst * bs_);
        std::vector<int32_t> sampled;
        for (const ScheduledChunk& c : plan.chunks) {
            const SchedSequence& s = *sched.find(c.id);
            const KvSequence& kv = sched.kv().sequence(c.id);
            EXPECT_EQ(c.context_before, s.num_computed);
            EXPECT_GE(int64_t(kv.blocks.size()) * bs_, c.context_before + c.num_tokens);
            for (int p = c.context_before; p < c.context_before + c.num_tokens; ++p) slot(kv, p) = {s.tokens[size_t(p)], p};
            if (c.samples) {
                std::vector<std::pair<int32_t, int32_t>> ctx;
                const int last = c.context_before + c.num_tokens - 1;
                for (int p = first_key(last, window_); p <= last; ++p) ctx.push_back(slot(kv, p));
                sampled.push_back(next_token(ctx, salt_[c.id]));
            }
        }
        sched.complete(plan, sampled);
        for (SeqId id : plan.admitted) first_admitted_at.emplace(id, steps);
        for (SeqId id : plan.out_of_memory) out_of_memory.insert(id);
        for (const ScheduledChunk& c : plan.chunks) {
            const SchedSequence& s = *sched.find(c.id);
            if (c.samples && s.num_generated() >= max_tokens_[c.id]) {
                outputs[c.id] = std::vector<int32_t>(s.tokens.begin() + s.num_prompt_tokens, s.tokens.end());
                finished_at[c.id] = steps;
                sched.remove(c.id);
            }
        }
        preempted_total += int64_t(plan.preempted.size());
        ++steps;
        return plan;
    }
    int run_until_idle(int max_steps = 100000) {
        int n = 0;
        while (sched.has_unfinished() && n < max_steps) {
            step();
            sched.check_invariants();
            ++n;
        }
        return n;
    }
    std::vector<int32_t> expected(SeqId id) const { return reference(prompts_.at(id), max_tokens_.at(id), salt_.at(id), window_); }

    Scheduler sched;
    int64_t steps = 0;
    int64_t preempted_total = 0;
    std::map<SeqId, std::vector<int32_t>> outputs;
    std::map<SeqId, int64_t> finished_at;
    std::map<SeqId, int64_t> first_admitted_at;
    std::map<SeqId, int> priority_of;
    std::map<SeqId, int64_t> submitted_at_;
    std::set<SeqId> cancelled, out_of_memory;

private:
    std::pair<int32_t, int32_t>& slot(const KvSequence& kv, int p) {
        const BlockId b = kv.blocks[size_t(p / bs_)];
        if (b == kReleasedBlock) {
            ADD_FAILURE() << "position " << p << " read or written through a released block";
            return stray_;
        }
        return slots_[size_t(b) * size_t(bs_) + size_t(p % bs_)];
    }
    int bs_;
    int window_;
    std::pair<int32_t, int32_t> stray_{-1, -1};
    std::vector<std::pair<int32_t, int32_t>> slots_;
    std::map<SeqId, int> max_tokens_;
    std::map<SeqId, uint64_t> salt_;
    std::map<SeqId, std::vector<int32_t>> prompts_;
};

SchedulerConfig config(int64_t blocks, int budget = 64, int max_seqs = 8, int bs = 4) {
    SchedulerConfig c;
    c.num_blocks = blocks;
    c.block_size = bs;
    c.max_num_batched_tokens = budget;
    c.max_num_seqs = max_seqs;
    c.max_model_len = 512;
    return c;
}

TEST(Scheduler, RejectsPromptsThatCanNeverRunWithClearMessages) {
    Scheduler s(config(10));  // 10 blocks of 4 = 40 tokens
    EXPECT_EQ(s.check_prompt(40), "");
    EXPECT_NE(s.check_prompt(0).find("empty"), std::string::npos);
    const std::string pool = s.check_prompt(41);
    EXPECT_NE(pool.find("41 tokens"), std::string::npos) << pool;
    EXPECT_NE(pool.find("holds 10 blocks"), std::string::npos) << pool;
    SchedulerConfig c = config(1000);
    c.max_model_len = 100;
    Scheduler t(c);
    const std::string ctx = t.check_prompt(101);
    EXPECT_NE(ctx.find("context holds 100"), std::string::npos) << ctx;
    EXPECT_THROW(t.add(1, toks(0, 101)), Error);
    EXPECT_THROW(t.add(1, {}), Error);
    t.add(1, toks(0, 100));
    EXPECT_THROW(t.add(1, toks(0, 5)), Error);  // duplicate id
    EXPECT_FALSE(t.has_unfinished() == false);
    EXPECT_THROW(Scheduler(config(10, 4, 8)), Error);  // budget below the sequence cap
}

TEST(Scheduler, DecodesKeepStreamingWhileALongPromptIsPrefilledInChunks) {
    Harness h(config(200, /*budget=*/16, /*max_seqs=*/4));
    h.add(1, toks(1, 5), 100);
    h.add(2, toks(20, 7), 100);
    for (int i = 0; i < 3; ++i) h.step();
    ASSERT_EQ(h.sched.num_running(), 2);
    h.add(3, toks(100, 300), 5);  // a long prompt: 300 tokens at 14 per step
    int prefill_steps = 0;
    while (h.sched.find(3)->num_computed < 300 - 1 || prefill_steps == 0) {
        const SchedulePlan plan = h.step();
        ++prefill_steps;
        // Both streams decode one token in every step; the rest of the budget goes to the prompt.
        ASSERT_GE(plan.chunks.size(), 3u);
        EXPECT_EQ(plan.chunks[0].num_tokens, 1);
        EXPECT_EQ(plan.chunks[1].num_tokens, 1);
        EXPECT_TRUE(plan.chunks[0].samples && plan.chunks[1].samples);
        EXPECT_EQ(plan.chunks[2].id, 3u);
        EXPECT_LE(plan.num_tokens, 16);
        if (h.sched.find(3)->num_computed >= 300) break;
    }
    EXPECT_EQ(prefill_steps, (300 + 13) / 14);
    h.run_until_idle();
    for (SeqId id : {1, 2, 3}) EXPECT_EQ(h.outputs[id], h.expected(id)) << id;
}

TEST(Scheduler, AdmitsByPriorityThenArrival) {
    Harness h(config(100, 64, /*max_seqs=*/1));
    h.add(1, toks(0, 3), 2);
    h.add(2, toks(10, 3), 2, /*priority=*/0);
    h.add(3, toks(20, 3), 2, /*priority=*/5);
    h.add(4, toks(30, 3), 2, /*priority=*/5);
    std::vector<SeqId> order;
    while (h.sched.has_unfinished()) {
        const SchedulePlan plan = h.step();
        for (SeqId id : plan.admitted) order.push_back(id);
    }
    EXPECT_EQ(order, (std::vector<SeqId>{3, 4, 1, 2}));
}

TEST(Scheduler, PreemptsTheNewestByRecomputeAndStillMatchesTheOracle) {
    // 12 blocks of 4 tokens hold 48 tokens; four requests of 8 + 24 tokens need 128.
    Harness h(config(12, 64, 8));
    for (SeqId id = 1; id <= 4; ++id) h.add(id, toks(int(id) * 100, 8), 24);
    std::vector<SeqId> victims;
    while (h.sched.has_unfinished()) {
        const std::vector<SeqId> running = h.sched.running();
        const SchedulePlan plan = h.step();
        h.sched.check_invariants();
        for (SeqId v : plan.preempted) {
            victims.push_back(v);
            // The victim is the most recently admitted of those that were running.
            EXPECT_EQ(v, running.back());
        }
        ASSERT_LT(h.steps, 10000);
    }
    EXPECT_FALSE(victims.empty());
    for (SeqId id = 1; id <= 4; ++id) EXPECT_EQ(h.outputs[id], h.expected(id)) << id;
    EXPECT_EQ(h.sched.kv().pool().num_used(), 0);
    EXPECT_EQ(h.sched.preemptions(), int64_t(victims.size()));
}

TEST(Scheduler, ASequenceLargerThanThePoolIsHandedBackNotLooped) {
    Harness h(config(4, 64, 4));  // 16 tokens in all
    h.add(1, toks(0, 10), 50);
    h.add(2, toks(50, 3), 2);
    h.run_until_idle();
    EXPECT_EQ(h.out_of_memory, (std::set<SeqId>{1}));
    EXPECT_EQ(h.outputs[2], h.expected(2));
    EXPECT_FALSE(h.outputs.count(1));
    EXPECT_EQ(h.sched.kv().pool().num_used(), 0);
}

TEST(Scheduler, CancellationInEveryStateFreesEverythingAtOnce) {
    Harness h(config(40, 8, 4));
    h.add(1, toks(0, 6), 50);    // will be decoding
    h.add(2, toks(10, 30), 50);  // will be mid-prefill
    h.add(3, toks(50, 6), 50);   // will be waiting (budget)
    h.step();
    h.step();
    ASSERT_TRUE(h.sched.find(1)->running);
    ASSERT_GT(h.sched.find(1)->num_generated(), 0);
    ASSERT_TRUE(h.sched.find(2)->running);
    ASSERT_LT(h.sched.find(2)->num_computed, 30);
    ASSERT_FALSE(h.sched.find(3)->running);
    for (SeqId id : {2, 1, 3}) {
        h.cancel(id);
        EXPECT_EQ(h.sched.find(id), nullptr);
        EXPECT_FALSE(h.sched.kv().holds(id));
        h.sched.check_invariants();
    }
    EXPECT_EQ(h.sched.kv().pool().num_used(), 0);
    EXPECT_FALSE(h.sched.has_unfinished());
    h.cancel(99);  // unknown: ignored
    EXPECT_TRUE(h.sched.schedule().empty());
}

TEST(Scheduler, PromptsSentTogetherWithACommonPrefixComputeItOnce) {
    for (const bool caching : {true, false}) {
        SchedulerConfig c = config(100, /*budget=*/64, 8);
        c.enable_prefix_caching = caching;
        Harness h(c);
        const auto prompt = toks(1, 30);  // 7 full blocks of 4, then 2 tokens
        for (SeqId id = 1; id <= 3; ++id) h.add(id, prompt, 5);
        const SchedulePlan first = h.step();
        if (!caching) {
            EXPECT_EQ(first.admitted.size(), 3u);
            h.run_until_idle();
            continue;
        }
        // Only the first computes the prompt; the others join once its blocks are cached.
        EXPECT_EQ(first.admitted, std::vector<SeqId>{1});
        const SchedulePlan second = h.step();
        EXPECT_EQ(second.admitted, (std::vector<SeqId>{2, 3}));
        ASSERT_EQ(second.chunks.size(), 3u);
        EXPECT_EQ(second.chunks[1].id, 2u);
        EXPECT_EQ(second.chunks[1].context_before, 28);  // 7 blocks from the cache
        EXPECT_EQ(second.chunks[1].num_tokens, 2);
        EXPECT_EQ(h.sched.kv().pool().num_used(), 8 + 1 + 1);
        EXPECT_EQ(h.sched.kv().info(3).shared_blocks, 7);
        h.run_until_idle();
        for (SeqId id = 1; id <= 3; ++id) EXPECT_EQ(h.outputs[id], h.expected(id)) << id;
    }
}

TEST(Scheduler, ALongSharedPromptIsChunkedOnceWhileItsTwinsWait) {
    Harness h(config(200, /*budget=*/16, 8));
    const auto prompt = toks(1, 70);
    h.add(1, prompt, 3);
    h.add(2, prompt, 3);
    int steps = 0;
    SchedulePlan plan;
    while (plan.admitted != std::vector<SeqId>{2}) {
        plan = h.step();
        ASSERT_LT(++steps, 20);
    }
    // 70 tokens at 16 per step: 1 prefills in steps 1-5 (block 16 is computed in step 5); 2 waits
    // for it, then reuses all 17 full blocks in step 6.
    EXPECT_EQ(steps, 6);
    EXPECT_EQ(plan.chunks.back().id, 2u);
    EXPECT_EQ(plan.chunks.back().context_before, 68);
    h.run_until_idle();
    EXPECT_EQ(h.outputs[1], h.outputs[2]);
    EXPECT_EQ(h.outputs[2], h.expected(2));
}

TEST(Scheduler, StalePlansAreRefused) {
    Scheduler s(config(10));
    s.add(1, toks(0, 3));
    SchedulePlan plan = s.schedule();
    s.add(2, toks(0, 3));
    EXPECT_THROW(s.apply(plan), std::logic_error);
}

TEST(Scheduler, StaticModeWaitsForABatchAndAdmitsNoneMidBatch) {
    SchedulerConfig c = config(200, 64, 8);
    c.static_batching = true;
    c.static_batch_size = 3;
    Harness h(c);
    h.add(1, toks(0, 4), 2);
    h.add(2, toks(10, 4), 6);
    EXPECT_TRUE(h.step().chunks.empty());  // two of three: wait
    h.add(3, toks(20, 4), 4);
    const SchedulePlan first = h.step();
    EXPECT_EQ(first.static_batch, (std::vector<SeqId>{1, 2, 3}));
    EXPECT_EQ(first.admitted.size(), 3u);
    h.add(4, toks(30, 4), 3);
    h.add(5, toks(40, 4), 3);
    // Until the longest member (2, six tokens) ends nobody joins, though 1 and 3 end sooner.
    while (h.sched.find(2)) {
        const SchedulePlan plan = h.step();
        EXPECT_TRUE(plan.admitted.empty());
        for (const auto& ch : plan.chunks) EXPECT_LE(ch.id, 3u);
    }
    EXPECT_EQ(h.finished_at[2] - h.finished_at[1], 4);
    // 4 and 5 are fewer than a batch: they wait until the input is closed.
    EXPECT_TRUE(h.step().chunks.empty());
    h.sched.set_input_closed(true);
    const SchedulePlan last = h.step();
    EXPECT_EQ(last.static_batch, (std::vector<SeqId>{4, 5}));
    h.run_until_idle();
    for (SeqId id = 1; id <= 5; ++id) EXPECT_EQ(h.outputs[id], h.expected(id)) << id;
}

TEST(Scheduler, ForkSharesBlocksAndCopiesOnDivergence) {
    Harness h(config(50, 64, 8));
    h.add(1, toks(0, 9), 12, 0, /*salt=*/1);
    for (int i = 0; i < 3; ++i) h.step();  // prefill + 2 decodes: 11 tokens computed, 12 known
    const int blocks_before = int(h.sched.kv().sequence(1).blocks.size());
    h.fork(1, 2, /*salt=*/2);
    EXPECT_EQ(h.sched.kv().pool().num_used(), blocks_before);  // shared, not copied
    EXPECT_EQ(h.sched.kv().info(2).shared_blocks, blocks_before);
    const SchedulePlan next = h.step();
    h.run_until_idle();
    EXPECT_EQ(h.sched.kv().counters().cow_copies, 1);
    // The child continues from the parent's tokens with its own sampling.
    std::vector<int32_t> prompt = toks(0, 9);
    const auto parent = h.outputs[1];
    EXPECT_EQ(parent, h.expected(1));
    std::vector<int32_t> child_ctx = prompt;
    child_ctx.insert(child_ctx.end(), parent.begin(), parent.begin() + 3);
    const auto child_rest = reference(child_ctx, 12 - 3, 2);
    ASSERT_EQ(h.outputs[2].size(), 12u);
    EXPECT_TRUE(std::equal(parent.begin(), parent.begin() + 3, h.outputs[2].begin()));
    EXPECT_TRUE(std::equal(child_rest.begin(), child_rest.end(), h.outputs[2].begin() + 3));
    EXPECT_NE(h.outputs[2], parent);
    (void)next;
}

// Thousands of random submissions, cancellations and steps on a small pool with shared prefixes,
// priorities and long prompts; invariants are checked after every step. Every request that was not
// cancelled finishes with exactly the tokens it produces alone, within a bounded number of steps,
// and the pool is entirely free at the end.
TEST(Scheduler, PropertyRandomWorkloadsKeepInvariantsFinishEverythingExactly) {
    for (const bool caching : {true, false}) {
        SchedulerConfig c = config(/*blocks=*/48, /*budget=*/24, /*max_seqs=*/6, /*bs=*/4);
        c.enable_prefix_caching = caching;
        Harness h(c);
        std::mt19937 rng(caching ? 11 : 12);
        std::vector<std::vector<int32_t>> bases{toks(1000, 40), toks(2000, 40)};
        SeqId next = 1;
        std::set<SeqId> live;
        for (int op = 0; op < 8000; ++op) {
            // A burst of submissions first builds a backlog that preemption and queueing must drain.
            const int r = op < 60 ? 0 : int(rng() % 10);
            if (r < 2) {
                std::vector<int32_t> prompt = bases[rng() % 2];
                prompt.resize(size_t(1 + rng() % 40));
                for (int k = int(rng() % 30); k > 0; --k) prompt.push_back(int32_t(rng() % 50));
                h.add(next, prompt, 1 + int(rng() % 30), int(rng() % 3) - 1, rng() % 3);
                live.insert(next++);
            } else if (r == 3 && !live.empty()) {
                auto it = live.begin();
                std::advance(it, rng() % live.size());
                if (h.sched.find(*it)) h.cancel(*it);
                live.erase(it);
            } else {
                h.step();
                ASSERT_NO_THROW(h.sched.check_invariants()) << "op " << op;
            }
            for (auto it = live.begin(); it != live.end();) it = h.sched.find(*it) ? std::next(it) : live.erase(it);
        }
        const int64_t drain_steps = h.run_until_idle(20000);
        ASSERT_FALSE(h.sched.has_unfinished()) << "not drained after " << drain_steps << " steps";
        EXPECT_TRUE(h.out_of_memory.empty());
        int64_t checked = 0;
        std::map<int, int64_t> longest_wait;  // per priority
        for (const auto& [id, out] : h.outputs) {
            ASSERT_EQ(out, h.expected(id)) << "request " << id;
            int64_t& w = longest_wait[h.priority_of[id]];
            w = std::max(w, h.finished_at[id] - h.submitted_at_[id]);
            ++checked;
        }
        // No overtaking within a priority: first admissions follow arrival order (ids are arrivals).
        std::map<int, int64_t> last_admission;
        for (const auto& [id, at] : h.first_admitted_at) {
            int64_t& last = last_admission[h.priority_of[id]];
            EXPECT_GE(at, last) << "request " << id << " overtook an earlier one of its priority";
            last = at;
        }
        for (const auto& [p, w] : longest_wait) std::printf("priority %d: longest submit-to-finish %lld steps\n", p, (long long)w);
        std::printf("requests %lld, steps %lld, preemptions %lld\n", (long long)checked, (long long)h.steps, (long long)h.preempted_total);
        EXPECT_GT(checked, 500);
        EXPECT_GT(h.preempted_total, 5);
        for (const auto& [p, w] : longest_wait) {
            EXPECT_LT(w, 1000) << "priority " << p << " starved";
        }
        EXPECT_LT(longest_wait[1], 400) << "the top priority waited too long";
        const KvCounters k = h.sched.kv().counters();
        EXPECT_EQ(k.blocks_used, 0);
        EXPECT_EQ(k.blocks_free + k.blocks_cached, 48);
        if (caching) {
            EXPECT_GT(k.prefix_hit_tokens, 0);
        }
    }
}

TEST(Scheduler, SlidingWindowRunsConversationsLongerThanThePoolExactly) {
    // A window of 10 tokens, blocks of 4: a sequence holds at most 4 blocks, so a 16-block pool runs
    // several conversations of up to 130 tokens (33 blocks each) by releasing what leaves the window.
    for (const bool caching : {true, false}) {
        SchedulerConfig c = config(/*blocks=*/16, /*budget=*/24, /*max_seqs=*/5, /*bs=*/4);
        c.enable_prefix_caching = caching;
        c.sliding_window = 10;
        Harness h(c);
        EXPECT_EQ(h.sched.check_prompt(100), "");  // 25 blocks of prompt, but only the window's are held
        std::mt19937 rng(caching ? 21 : 22);
        const std::vector<int32_t> base = toks(3000, 70);
        SeqId next = 1;
        int longest = 0;  // prompt + generated tokens of the longest conversation
        for (int op = 0; op < 2500; ++op) {
            if (op < 20 || rng() % 12 == 0) {
                std::vector<int32_t> prompt = base;
                prompt.resize(size_t(1 + rng() % 70));
                for (int k = int(rng() % 10); k > 0; --k) prompt.push_back(int32_t(rng() % 50));
                const int max_tokens = 1 + int(rng() % 60);
                longest = std::max(longest, int(prompt.size()) + max_tokens);
                h.add(next++, prompt, max_tokens, 0, rng() % 3);
            } else {
                h.step();
                ASSERT_NO_THROW(h.sched.check_invariants()) << "op " << op;
                for (SeqId id : h.sched.running()) ASSERT_LE(h.sched.kv().info(id).blocks, 10 / 4 + 2) << "op " << op;
            }
        }
        h.run_until_idle(20000);
        ASSERT_FALSE(h.sched.has_unfinished());
        EXPECT_TRUE(h.out_of_memory.empty());
        for (const auto& [id, out] : h.outputs) ASSERT_EQ(out, h.expected(id)) << "request " << id;
        EXPECT_GT(h.outputs.size(), 150u);
        EXPECT_GT(longest, 16 * 4);  // longer than the whole pool
        EXPECT_GT(h.preempted_total, 0);
        const KvCounters k = h.sched.kv().counters();
        EXPECT_EQ(k.blocks_used, 0);
        if (caching) {
            EXPECT_GT(k.prefix_hit_tokens, 0);
        }
    }
}

}  // namespace
}  // namespace folio
