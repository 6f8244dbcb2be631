#include "engine/kv/block_pool.h"

#include <gtest/gtest.h>

#include <vector>

#include "engine/kv/block_hash.h"
#include "engine/kv/free_block_queue.h"
#include "tests/support/token_ids.h"

namespace folio {
namespace {

TEST(FreeBlockQueue, PopRemoveAppendKeepLruOrder) {
    FreeBlockQueue q(5);
    EXPECT_EQ(q.to_vector(), (std::vector<int32_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(q.pop_front(), 0);
    q.remove(3);
    q.push_back(0);
    EXPECT_EQ(q.to_vector(), (std::vector<int32_t>{1, 2, 4, 0}));
    EXPECT_TRUE(q.contains(0));
    EXPECT_FALSE(q.contains(3));
    q.remove(4);
    q.remove(1);
    EXPECT_EQ(q.front(), 2);
    q.push_back(3);
    EXPECT_EQ(q.to_vector(), (std::vector<int32_t>{2, 0, 3}));
    EXPECT_EQ(q.size(), 3);
    EXPECT_THROW(q.push_back(2), std::logic_error);
    EXPECT_THROW(q.remove(1), std::logic_error);
    while (!q.empty()) q.pop_front();
    EXPECT_EQ(q.front(), -1);
    EXPECT_THROW(q.pop_front(), std::logic_error);
    FreeBlockQueue none(0);
    EXPECT_TRUE(none.empty());
}

TEST(BlockHash, DependsOnParentOrderAndEveryToken) {
    const std::vector<int32_t> a{1, 2, 3, 4};
    std::vector<int32_t> b = a;
    EXPECT_EQ(hash_block(7, a), hash_block(7, b));
    EXPECT_NE(hash_block(7, a), hash_block(8, a));
    std::swap(b[0], b[1]);
    EXPECT_NE(hash_block(7, a), hash_block(7, b));
    for (size_t i = 0; i < a.size(); ++i) {
        std::vector<int32_t> c = a;
        c[i] ^= 1 << 20;
        EXPECT_NE(hash_block(7, a), hash_block(7, c)) << i;
    }
}

using test::toks;

TEST(BlockPool, AllocateRetainReleaseCounts) {
    BlockPool pool(4, 2);
    EXPECT_EQ(pool.num_free(), 4);
    const BlockId a = pool.allocate();
    const BlockId b = pool.allocate();
    EXPECT_EQ(a, 0);
    EXPECT_EQ(b, 1);
    EXPECT_EQ(pool.num_used(), 2);
    pool.retain(a);
    EXPECT_EQ(pool.ref_count(a), 2);
    pool.release(a);
    pool.release(a);
    EXPECT_EQ(pool.ref_count(a), 0);
    EXPECT_THROW(pool.release(a), std::logic_error);
    pool.release(b);
    // LRU: 2 and 3 were never used, then 0 and 1 in the order they were freed.
    EXPECT_EQ(pool.allocate(), 2);
    EXPECT_EQ(pool.allocate(), 3);
    EXPECT_EQ(pool.allocate(), 0);
    EXPECT_EQ(pool.allocate(), 1);
    EXPECT_THROW(pool.allocate(), std::logic_error);
    pool.check_invariants();
}

TEST(BlockPool, CachedBlockStaysFindableUntilPoppedThenIsEvicted) {
    BlockPool pool(3, 4);
    const BlockId a = pool.allocate();
    const CacheEntryId ea = pool.register_block(a, kRootEntry, toks(10, 4));
    EXPECT_NE(ea, kRootEntry);
    const BlockId b = pool.allocate();
    const CacheEntryId eb = pool.register_block(b, ea, toks(20, 4));
    EXPECT_EQ(pool.num_entries(), 2);

    pool.release(b);  // b freed first, so it is evicted first
    pool.release(a);
    EXPECT_EQ(pool.num_cached_free(), 2);
    EXPECT_EQ(pool.num_free(), 3);
    ASSERT_TRUE(pool.find(kRootEntry, toks(10, 4)));
    EXPECT_EQ(pool.find(kRootEntry, toks(10, 4))->block, a);
    EXPECT_EQ(pool.find(ea, toks(20, 4))->entry, eb);

    // A hit on a cached free block takes it out of the free queue.
    pool.retain(a);
    EXPECT_EQ(pool.num_cached_free(), 1);
    EXPECT_EQ(pool.num_free(), 2);
    pool.check_invariants();

    EXPECT_EQ(pool.allocate(), 2);  // the never-used block first
    EXPECT_EQ(pool.evictions(), 0);
    EXPECT_EQ(pool.allocate(), b);  // then the cached one: its entry goes
    EXPECT_EQ(pool.evictions(), 1);
    EXPECT_FALSE(pool.find(ea, toks(20, 4)));
    EXPECT_TRUE(pool.find(kRootEntry, toks(10, 4)));
    pool.check_invariants();
}

TEST(BlockPool, HitsCompareParentAndTokensExactly) {
    BlockPool pool(4, 2);
    const BlockId a = pool.allocate();
    const CacheEntryId ea = pool.register_block(a, kRootEntry, toks(1, 2));
    EXPECT_FALSE(pool.find(ea, toks(1, 2)));          // same tokens, other parent
    EXPECT_FALSE(pool.find(kRootEntry, toks(2, 2)));  // other tokens
    EXPECT_FALSE(pool.find(kRootEntry, toks(1, 1)));  // not a full block
    EXPECT_THROW(pool.register_block(a, kRootEntry, toks(1, 1)), std::logic_error);
    // Same prefix computed twice: the second block stays unregistered, the first entry is reused.
    const BlockId b = pool.allocate();
    EXPECT_EQ(pool.register_block(b, kRootEntry, toks(1, 2)), ea);
    EXPECT_EQ(pool.entry(b), kRootEntry);
    EXPECT_EQ(pool.num_entries(), 1);
    // Registering an already registered block is a no-op returning its entry.
    EXPECT_EQ(pool.register_block(a, kRootEntry, toks(1, 2)), ea);
    pool.release(b);
    EXPECT_THROW(pool.register_block(b, kRootEntry, toks(5, 2)), std::logic_error);  // not held
    pool.check_invariants();
}

}  // namespace
}  // namespace folio
