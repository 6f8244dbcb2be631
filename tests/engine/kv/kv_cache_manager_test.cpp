#include "engine/kv/kv_cache_manager.h"
#include "tests/support/token_ids.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

namespace folio {
namespace {

using test::toks;

// A stand-in for the backend's KV pools: each slot remembers the token and position written there.
// A sequence reads back its own tokens through its block table only if the bookkeeping is right.
class ShadowKv {
public:
    ShadowKv(int64_t blocks, int bs) : bs_(bs), slots_(size_t(blocks * bs), {-1, -1}) {}
    void copy(const std::vector<BlockCopy>& copies) {
        for (const auto& c : copies)
            std::copy_n(slots_.begin() + c.src * bs_, bs_, slots_.begin() + c.dst * bs_);
    }
    void write(const KvSequence& s, const std::vector<int32_t>& tokens, int from, int n) {
        for (int p = from; p < from + n; ++p) slots_[slot(s, p)] = {tokens[size_t(p)], p};
    }
    // The first position whose KV is not this sequence's token, or -1.
    int first_mismatch(const KvSequence& s, const std::vector<int32_t>& tokens) const {
        for (int p = 0; p < s.num_tokens; ++p)
            if (slots_[slot(s, p)] != std::pair<int32_t, int32_t>{tokens[size_t(p)], p}) return p;
        return -1;
    }

private:
    size_t slot(const KvSequence& s, int p) const { return size_t(s.blocks[size_t(p / bs_)]) * size_t(bs_) + size_t(p % bs_); }
    int bs_;
    std::vector<std::pair<int32_t, int32_t>> slots_;
};

TEST(KvCacheManager, PrefixHitIsCappedSoTheLastTokenIsRecomputed) {
    KvCacheManager kv(8, 4, true);
    const auto prompt = toks(100, 8);  // exactly two blocks
    KvPlan plan = kv.plan();
    ASSERT_TRUE(plan.reserve_new(1, kv.find_prefix(prompt), 8));
    EXPECT_EQ(plan.free_blocks(), 6);
    kv.apply(plan);
    kv.commit(1, 8, prompt);
    EXPECT_EQ(kv.pool().num_entries(), 2);

    const PrefixHit same = kv.find_prefix(prompt);
    EXPECT_EQ(same.blocks.size(), 1u);  // not both: the 8th token must be recomputed for its logits
    auto longer = prompt;
    longer.push_back(7);
    EXPECT_EQ(kv.find_prefix(longer).blocks.size(), 2u);
    auto other = prompt;
    other[5] = 0;
    EXPECT_EQ(kv.find_prefix(other).blocks.size(), 1u);
    EXPECT_EQ(kv.find_prefix(toks(0, 9)).blocks.size(), 0u);

    KvCacheManager off(8, 4, false);
    KvPlan p2 = off.plan();
    ASSERT_TRUE(p2.reserve_new(1, off.find_prefix(prompt), 8));
    off.apply(p2);
    off.commit(1, 8, prompt);
    EXPECT_EQ(off.find_prefix(longer).blocks.size(), 0u);
    EXPECT_EQ(off.pool().num_entries(), 0);
}

TEST(KvCacheManager, IdenticalPrefixesShareBlocksAndCountHits) {
    KvCacheManager kv(16, 4, true);
    ShadowKv shadow(16, 4);
    std::vector<int32_t> a = toks(1, 10), b = toks(1, 10);
    b[9] = 99;  // same first 9 tokens: two full blocks shared
    KvPlan p = kv.plan();
    ASSERT_TRUE(p.reserve_new(1, kv.find_prefix(a), 10));
    kv.apply(p);
    shadow.write(kv.sequence(1), a, 0, 10);
    kv.commit(1, 10, a);

    const PrefixHit hit = kv.find_prefix(b);
    ASSERT_EQ(hit.blocks.size(), 2u);
    p = kv.plan();
    EXPECT_EQ(p.blocks_needed_new(hit, 2), 1);
    ASSERT_TRUE(p.reserve_new(2, hit, 2));
    kv.apply(p);
    EXPECT_EQ(kv.sequence(2).num_tokens, 8);
    shadow.write(kv.sequence(2), b, 8, 2);
    kv.commit(2, 2, b);
    EXPECT_EQ(shadow.first_mismatch(kv.sequence(1), a), -1);
    EXPECT_EQ(shadow.first_mismatch(kv.sequence(2), b), -1);

    const KvCounters c = kv.counters();
    EXPECT_EQ(c.blocks_used, 4);  // 3 for a, 1 more for b
    EXPECT_EQ(c.prefix_lookup_tokens, 20);
    EXPECT_EQ(c.prefix_hit_tokens, 8);
    EXPECT_DOUBLE_EQ(c.prefix_hit_rate(), 0.4);
    EXPECT_EQ(kv.info(2).shared_blocks, 2);
    EXPECT_EQ(kv.pool().ref_count(kv.sequence(1).blocks[0]), 2);
    // Physical slots: 4 blocks, 16 slots, filled 4 + 4 + 2 + 2 = 12.
    EXPECT_EQ(c.slots_allocated, 16);
    EXPECT_EQ(c.slots_filled, 12);
    EXPECT_DOUBLE_EQ(c.fragmentation(), 0.25);
    kv.check_invariants();

    kv.free(1);
    kv.free(2);
    const KvCounters end = kv.counters();
    EXPECT_EQ(end.blocks_used, 0);
    EXPECT_EQ(end.blocks_cached, 2);  // the two full blocks stay reusable
    EXPECT_EQ(end.blocks_free, 14);
    kv.check_invariants();
}

TEST(KvCacheManager, ForkCopiesOnWriteIntoTheSharedPartialBlock) {
    KvCacheManager kv(8, 4, true);
    ShadowKv shadow(8, 4);
    std::vector<int32_t> a = toks(1, 6);
    KvPlan p = kv.plan();
    ASSERT_TRUE(p.reserve_new(1, {}, 6));
    kv.apply(p);
    shadow.write(kv.sequence(1), a, 0, 6);
    kv.commit(1, 6, a);
    kv.fork(1, 2);
    std::vector<int32_t> b = a;
    a.push_back(50);
    b.push_back(60);  // diverge
    EXPECT_EQ(kv.pool().ref_count(kv.sequence(1).blocks[1]), 2);

    p = kv.plan();
    EXPECT_EQ(p.blocks_needed(1, 1), 1);  // copy-on-write
    ASSERT_TRUE(p.reserve(1, 1));
    EXPECT_EQ(p.blocks_needed(2, 1), 0);  // the other holder then owns the original alone
    ASSERT_TRUE(p.reserve(2, 1));
    const auto copies = kv.apply(p);
    ASSERT_EQ(copies.size(), 1u);
    EXPECT_EQ(copies[0].src, kv.sequence(2).blocks[1]);
    EXPECT_EQ(copies[0].dst, kv.sequence(1).blocks[1]);
    shadow.copy(copies);
    shadow.write(kv.sequence(1), a, 6, 1);
    shadow.write(kv.sequence(2), b, 6, 1);
    kv.commit(1, 1, a);
    kv.commit(2, 1, b);
    EXPECT_EQ(shadow.first_mismatch(kv.sequence(1), a), -1);
    EXPECT_EQ(shadow.first_mismatch(kv.sequence(2), b), -1);
    EXPECT_EQ(kv.sequence(1).blocks[0], kv.sequence(2).blocks[0]);  // the full block stays shared
    EXPECT_NE(kv.sequence(1).blocks[1], kv.sequence(2).blocks[1]);
    EXPECT_EQ(kv.counters().cow_copies, 1);
    kv.check_invariants();
}

TEST(KvCacheManager, PlannedReleaseMakesRoomAndCanServeAHitInTheSameStep) {
    KvCacheManager kv(3, 4, true);
    const auto a = toks(1, 9);
    KvPlan p = kv.plan();
    ASSERT_TRUE(p.reserve_new(1, {}, 9));
    kv.apply(p);
    kv.commit(1, 9, a);
    EXPECT_EQ(kv.pool().num_free(), 0);

    auto b = a;
    b[8] = 77;
    const PrefixHit hit = kv.find_prefix(b);
    ASSERT_EQ(hit.blocks.size(), 2u);
    p = kv.plan();
    EXPECT_FALSE(p.reserve_new(2, hit, 1));  // nothing free while 1 holds everything... but:
    p.release(1);
    EXPECT_EQ(p.free_blocks(), 3);
    EXPECT_EQ(p.blocks_needed_new(hit, 1), 3);  // two cached blocks leave the free queue, one new
    ASSERT_TRUE(p.reserve_new(2, hit, 1));
    EXPECT_EQ(p.free_blocks(), 0);
    EXPECT_THROW(p.reserve(1, 1), std::logic_error);  // released sequences are not planned further
    kv.apply(p);
    EXPECT_FALSE(kv.holds(1));
    EXPECT_EQ(kv.sequence(2).num_tokens, 8);
    kv.commit(2, 1, b);
    kv.check_invariants();
}

TEST(KvCacheManager, MaxTokensShrinksAChunkToTheRoomLeft) {
    KvCacheManager kv(3, 4, false);
    KvPlan p = kv.plan();
    ASSERT_TRUE(p.reserve_new(1, {}, 2));
    kv.apply(p);
    kv.commit(1, 2, toks(0, 2));
    p = kv.plan();
    EXPECT_EQ(p.max_tokens(1, 100), 2 + 2 * 4);
    EXPECT_EQ(p.max_tokens_within(1, 100, 1), 2 + 4);
    EXPECT_EQ(p.max_tokens_within(1, 100, 0), 2);
    EXPECT_EQ(p.max_tokens(1, 3), 3);
    EXPECT_FALSE(p.reserve(1, 11));
    EXPECT_TRUE(p.reserve(1, 10));
    EXPECT_EQ(p.free_blocks(), 0);
}

TEST(KvCacheManager, ApplyRefusesAPlanOfAnotherCache) {
    KvCacheManager a(2, 4, true), b(2, 4, true);
    KvPlan p = a.plan();
    EXPECT_THROW(b.apply(p), std::logic_error);
    EXPECT_THROW(b.apply(KvPlan{}), std::logic_error);
}

// Thousands of random plan/apply/commit/fork/free operations over a small pool, with shared prompt
// prefixes so prefix hits, evictions, copies on write and planned releases all happen. After every
// step: all invariants hold and every sequence reads back exactly its own tokens through its table.
TEST(KvCacheManager, PropertyRandomOperationsKeepInvariantsAndContents) {
    for (const bool caching : {true, false}) {
        const int bs = 4;
        const int64_t blocks = 40;
        KvCacheManager kv(blocks, bs, caching);
        ShadowKv shadow(blocks, bs);
        std::mt19937 rng(caching ? 7 : 8);
        std::map<SeqId, std::vector<int32_t>> tokens;  // every sequence's full token list
        std::vector<std::vector<int32_t>> bases;
        for (int i = 0; i < 3; ++i) bases.push_back(toks(1000 * (i + 1), 13));
        SeqId next = 1;
        int64_t hits_seen = 0, cows = 0;
        for (int step = 0; step < 3000; ++step) {
            KvPlan plan = kv.plan();
            std::vector<std::pair<SeqId, int>> writes;  // (seq, n) planned
            std::vector<SeqId> ids;
            for (const auto& [id, t] : tokens) ids.push_back(id);
            std::shuffle(ids.begin(), ids.end(), rng);
            // Some planned releases (preemptions) come first.
            for (SeqId id : ids) {
                if (rng() % 10 == 0) {
                    plan.release(id);
                    writes.push_back({id, -1});
                }
            }
            for (SeqId id : ids) {
                if (plan.releases(id)) continue;
                if (rng() % 3 == 0) continue;
                const int want = 1 + int(rng() % 7);
                const int n = plan.max_tokens(id, want);
                if (n == 0) continue;
                ASSERT_TRUE(plan.reserve(id, n));
                auto& t = tokens[id];
                while (int(t.size()) < kv.sequence(id).num_tokens + n) t.push_back(int32_t(rng() % 5));
                writes.push_back({id, n});
            }
            if (rng() % 2 == 0) {
                std::vector<int32_t> prompt = bases[rng() % bases.size()];
                prompt.resize(size_t(1 + rng() % 13));
                for (int k = int(rng() % 6); k > 0; --k) prompt.push_back(int32_t(rng() % 5));
                const PrefixHit hit = kv.find_prefix(prompt);
                const int start = int(hit.blocks.size()) * bs;
                const int n = int(prompt.size()) - start;
                if (plan.reserve_new(next, hit, n)) {
                    hits_seen += int64_t(hit.blocks.size());
                    tokens[next] = prompt;
                    writes.push_back({next, n});
                    ++next;
                }
            }
            const auto copies = kv.apply(plan);
            cows += int64_t(copies.size());
            shadow.copy(copies);
            for (const auto& [id, n] : writes) {
                if (n < 0) {
                    tokens.erase(id);
                    continue;
                }
                const KvSequence& s = kv.sequence(id);
                shadow.write(s, tokens[id], s.num_tokens, n);
                kv.commit(id, n, tokens[id]);
            }
            // Between steps: forks and frees.
            if (!tokens.empty() && rng() % 8 == 0) {
                auto it = tokens.begin();
                std::advance(it, rng() % tokens.size());
                const SeqId parent = it->first;
                kv.fork(parent, next);
                tokens[next] = std::vector<int32_t>(it->second.begin(), it->second.begin() + kv.sequence(parent).num_tokens);
                ++next;
            }
            if (!tokens.empty() && (rng() % 4 == 0 || kv.pool().num_free() < 4)) {
                auto it = tokens.begin();
                std::advance(it, rng() % tokens.size());
                kv.free(it->first);
                tokens.erase(it);
            }
            ASSERT_NO_THROW(kv.check_invariants()) << "step " << step;
            for (const auto& [id, t] : tokens)
                ASSERT_EQ(shadow.first_mismatch(kv.sequence(id), t), -1) << "sequence " << id << " step " << step;
        }
        if (caching) {
            EXPECT_GT(hits_seen, 100);
            EXPECT_GT(kv.counters().evictions, 10);
        }
        EXPECT_GT(cows, 10);
        for (const auto& [id, t] : tokens) kv.free(id);
        const KvCounters c = kv.counters();
        EXPECT_EQ(c.blocks_used, 0);
        EXPECT_EQ(c.blocks_cached + c.blocks_free, blocks);
        kv.check_invariants();
    }
}

}  // namespace
}  // namespace folio
