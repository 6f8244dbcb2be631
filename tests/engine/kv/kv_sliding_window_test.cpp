// KvCacheManager under a sliding window: blocks whose keys no later query can attend are released
// (their table entries become kReleasedBlock), counters and invariants agree, forks share only what
// is still held, and released blocks keep serving the prefix cache.
#include <gtest/gtest.h>

#include <vector>

#include "engine/kv/kv_cache_manager.h"
#include "tests/support/token_ids.h"

namespace folio {
namespace {

using test::toks;

// The first key a query at `pos` attends (engine/cpu/ops.h first_attended_key).
int first_key(int pos, int window) { return pos >= window ? pos - window + 1 : 0; }

// Writes `n` tokens for a new sequence (with its prefix hit), or a held one.
void step_new(KvCacheManager& kv, SeqId id, const std::vector<int32_t>& tokens, int n) {
    const PrefixHit hit = kv.find_prefix(tokens);
    KvPlan p = kv.plan();
    ASSERT_TRUE(p.reserve_new(id, hit, n));
    kv.apply(p);
    kv.commit(id, n, tokens);
    kv.check_invariants();
}

std::vector<BlockCopy> step(KvCacheManager& kv, SeqId id, const std::vector<int32_t>& tokens, int n) {
    KvPlan p = kv.plan();
    EXPECT_TRUE(p.reserve(id, n));
    std::vector<BlockCopy> copies = kv.apply(p);
    kv.commit(id, n, tokens);
    kv.check_invariants();
    return copies;
}

TEST(KvSlidingWindow, FirstLiveBlockAndBlocksToRun) {
    KvCacheManager none(8, 4, true);
    EXPECT_EQ(none.first_live_block(1000), 0);
    EXPECT_EQ(none.blocks_to_run(1000), 250);
    KvCacheManager kv(8, 4, true, 6);
    EXPECT_EQ(kv.sliding_window(), 6);
    EXPECT_EQ(kv.first_live_block(5), 0);   // keys 0..5
    EXPECT_EQ(kv.first_live_block(8), 0);   // keys 3..8: block 0 still needed
    EXPECT_EQ(kv.first_live_block(9), 1);   // keys 4..9
    EXPECT_EQ(kv.first_live_block(100), 23);
    EXPECT_EQ(kv.blocks_to_run(3), 1);
    EXPECT_EQ(kv.blocks_to_run(1000), 3);   // a window of 6 spans at most 3 blocks of 4
    KvCacheManager w32(8, 16, true, 32);
    EXPECT_EQ(w32.blocks_to_run(4096), 3);  // 32 / 16 + 1
}

TEST(KvSlidingWindow, ReleasesLeadingBlocksAsTheSequenceGrows) {
    const int W = 6, bs = 4;
    KvCacheManager kv(16, bs, true, W);
    std::vector<int32_t> t = toks(10, 10);
    step_new(kv, 1, t, 10);  // keys 5.. for the next query: block 0 is out
    const KvSequence& s = kv.sequence(1);
    ASSERT_EQ(s.blocks.size(), 3u);
    EXPECT_EQ(s.blocks[0], kReleasedBlock);
    EXPECT_EQ(s.num_released, 1);
    EXPECT_EQ(kv.info(1).blocks, 2);
    KvCounters c = kv.counters();
    EXPECT_EQ(c.blocks_used, 2);
    EXPECT_EQ(c.blocks_cached, 1);  // the released full block keeps its prefix entry
    EXPECT_EQ(c.blocks_free, 13);
    EXPECT_EQ(c.slots_allocated, 8);
    EXPECT_EQ(c.slots_filled, 6);   // tokens 4..9 in the held blocks
    for (int n = 10; n < 60; ++n) {
        t.push_back(100 + n);
        step(kv, 1, t, 1);
        const KvSequence& q = kv.sequence(1);
        const int len = n + 1;
        EXPECT_EQ(q.num_released, first_key(len, W) / bs) << len;
        EXPECT_LE(q.num_held(), int(kv.blocks_to_run(len))) << len;
        c = kv.counters();
        EXPECT_EQ(c.blocks_used, q.num_held());
        EXPECT_EQ(c.slots_filled, len - q.num_released * bs);
        EXPECT_EQ(c.blocks_used + c.blocks_cached + c.blocks_free, c.blocks_total);
    }
    kv.free(1);
    kv.check_invariants();
    EXPECT_EQ(kv.counters().blocks_used, 0);
    EXPECT_EQ(kv.pool().num_free(), 16);
}

TEST(KvSlidingWindow, APoolOfTheWindowRunsAConversationLongerThanThePool) {
    KvCacheManager kv(3, 4, false, 6);  // 12 slots; the conversation reaches 60 tokens
    std::vector<int32_t> t = toks(1, 5);
    step_new(kv, 7, t, 5);
    for (int n = 5; n < 60; ++n) {
        t.push_back(n);
        KvPlan p = kv.plan();
        ASSERT_EQ(p.blocks_needed(7, 1) <= p.free_blocks(), true) << "at " << n << " tokens the window's blocks no longer fit";
        ASSERT_TRUE(p.reserve(7, 1));
        kv.apply(p);
        kv.commit(7, 1, t);
        kv.check_invariants();
    }
    EXPECT_EQ(kv.sequence(7).num_tokens, 60);
    EXPECT_LE(kv.counters().blocks_used, 3);
}

TEST(KvSlidingWindow, AChunkHoldsItsWholeSpanUntilCommitThenReleases) {
    KvCacheManager kv(16, 4, false, 6);
    const std::vector<int32_t> t = toks(1, 30);
    KvPlan p = kv.plan();
    EXPECT_EQ(p.blocks_needed_new({}, 30), 8);  // the forward pass writes every position's KV
    ASSERT_TRUE(p.reserve_new(3, {}, 30));
    kv.apply(p);
    EXPECT_EQ(kv.sequence(3).num_held(), 8);
    kv.commit(3, 30, t);
    kv.check_invariants();
    EXPECT_EQ(kv.sequence(3).num_released, 6);  // keys 25.. for the next query
    EXPECT_EQ(kv.counters().blocks_used, 2);
    // A preemption plan frees only what the sequence still holds.
    KvPlan r = kv.plan();
    r.release(3);
    EXPECT_EQ(r.free_blocks(), 16);
    kv.apply(r);
    kv.check_invariants();
    EXPECT_FALSE(kv.holds(3));
}

TEST(KvSlidingWindow, ForkSharesHeldBlocksAndReleasesEachHoldersReference) {
    const int W = 6, bs = 4;
    KvCacheManager kv(16, bs, false, W);
    std::vector<int32_t> a = toks(1, 18);
    step_new(kv, 1, a, 18);  // keys 13.. next: blocks 0..2 released, 3 and 4 (partial) held
    ASSERT_EQ(kv.sequence(1).num_released, 3);
    kv.fork(1, 2);
    kv.check_invariants();
    const std::vector<BlockId> parent = kv.sequence(1).blocks;
    EXPECT_EQ(kv.sequence(2).blocks, parent);
    EXPECT_EQ(kv.pool().ref_count(parent[3]), 2);
    EXPECT_EQ(kv.info(2).blocks, 2);
    EXPECT_EQ(kv.info(2).shared_blocks, 2);
    EXPECT_EQ(kv.counters().blocks_used, 2);

    std::vector<int32_t> b = a;
    b.push_back(500);
    const std::vector<BlockCopy> copies = step(kv, 2, b, 1);  // writes into shared partial block 4
    ASSERT_EQ(copies.size(), 1u);
    EXPECT_EQ(copies[0].src, parent[4]);
    EXPECT_NE(kv.sequence(2).blocks[4], parent[4]);
    // Both move on until block 3 leaves both windows; it is returned only when the last holder lets go.
    for (int n = 19; n < 22; ++n) {
        a.push_back(600 + n);
        step(kv, 1, a, 1);
        b.push_back(700 + n);
        step(kv, 2, b, 1);
    }
    EXPECT_EQ(kv.sequence(1).num_released, 4);  // 22 tokens: keys 17.. next
    EXPECT_EQ(kv.sequence(2).num_released, 4);
    EXPECT_EQ(kv.pool().ref_count(parent[3]), 0);
    kv.free(1);
    kv.check_invariants();
    EXPECT_EQ(kv.counters().blocks_used, kv.sequence(2).num_held());
    kv.free(2);
    kv.check_invariants();
    EXPECT_EQ(kv.counters().blocks_used, 0);
}

TEST(KvSlidingWindow, SharedBlockStaysWhileTheOtherHolderStillNeedsIt) {
    KvCacheManager kv(16, 4, false, 6);
    std::vector<int32_t> a = toks(1, 8);
    step_new(kv, 1, a, 8);
    kv.fork(1, 2);
    const BlockId b0 = kv.sequence(1).blocks[0];
    for (int n = 8; n < 12; ++n) {  // only the parent moves on: its window leaves block 0
        a.push_back(n);
        step(kv, 1, a, 1);
    }
    EXPECT_EQ(kv.sequence(1).blocks[0], kReleasedBlock);
    EXPECT_EQ(kv.sequence(2).blocks[0], b0);  // the child, at 8 tokens, still attends key 3
    EXPECT_EQ(kv.pool().ref_count(b0), 1);
    EXPECT_EQ(kv.info(2).shared_blocks, 1);    // block 1 only
    kv.check_invariants();
}

TEST(KvSlidingWindow, ReleasedBlocksStillServeThePrefixCache) {
    const int W = 6, bs = 4;
    KvCacheManager kv(16, bs, true, W);
    std::vector<int32_t> a = toks(1, 20);
    step_new(kv, 1, a, 20);  // keys 15.. next: blocks 0..2 released, cached
    ASSERT_EQ(kv.sequence(1).num_released, 3);
    EXPECT_EQ(kv.counters().blocks_cached, 3);

    // The same conversation again: five full blocks hit, only those in the window are taken.
    std::vector<int32_t> b = a;
    b.push_back(99);
    const PrefixHit hit = kv.find_prefix(b);
    ASSERT_EQ(hit.blocks.size(), 5u);
    KvPlan p = kv.plan();
    EXPECT_EQ(p.blocks_needed_new(hit, 1), 1);  // blocks 3 and 4 are held by 1; block 0..2 not needed
    ASSERT_TRUE(p.reserve_new(2, hit, 1));
    kv.apply(p);
    const KvSequence& s2 = kv.sequence(2);
    EXPECT_EQ(s2.num_released, 3);  // the query at 20 reads keys 15..20: blocks 3, 4 and a new one
    EXPECT_EQ(s2.blocks[3], kv.sequence(1).blocks[3]);
    EXPECT_EQ(s2.blocks[4], kv.sequence(1).blocks[4]);
    EXPECT_EQ(s2.entries.size(), 5u);  // the released hits' entries stay the parents of later blocks
    kv.commit(2, 1, b);
    kv.check_invariants();
    EXPECT_EQ(s2.num_released, 4);  // then block 3 left its window; 1 still holds it
    EXPECT_EQ(kv.pool().ref_count(kv.sequence(1).blocks[3]), 1);
    EXPECT_EQ(s2.entries.size(), 5u);  // block 5 is not full yet
    EXPECT_EQ(kv.counters().prefix_hit_tokens, 20);
    EXPECT_EQ(kv.counters().blocks_cached, 3);  // not taken back

    // A shorter prompt whose window still covers those blocks takes them back from the cache.
    kv.free(1);
    kv.free(2);
    kv.check_invariants();
    std::vector<int32_t> c(a.begin(), a.begin() + 9);
    const PrefixHit hc = kv.find_prefix(c);
    ASSERT_EQ(hc.blocks.size(), 2u);
    KvPlan pc = kv.plan();
    EXPECT_EQ(pc.blocks_needed_new(hc, 1), 3);  // two cached blocks leave the free queue, one new
    ASSERT_TRUE(pc.reserve_new(3, hc, 1));
    kv.apply(pc);
    kv.commit(3, 1, c);
    kv.check_invariants();
    // Block 0 was read by the query at position 8 (keys 3..8), then left the window.
    EXPECT_EQ(kv.sequence(3).num_released, 1);
    EXPECT_EQ(kv.counters().prefix_hit_tokens, 28);
}

TEST(KvSlidingWindow, WithoutAWindowNothingIsReleased) {
    KvCacheManager kv(16, 4, false, 0);
    step_new(kv, 1, toks(1, 30), 30);
    EXPECT_EQ(kv.sequence(1).num_released, 0);
    EXPECT_EQ(kv.counters().blocks_used, 8);
}

}  // namespace
}  // namespace folio
