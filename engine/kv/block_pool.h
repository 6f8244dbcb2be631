#pragma once
// The physical KV blocks: every block is made at start; each has a reference count (how many
// sequences hold it in their block table) and may carry a prefix-cache entry (the full block's
// tokens and its parent entry). A block with no holder sits in the LRU free queue; if it still
// carries an entry it stays reusable by a later prefix hit until it is popped for new tokens, which
// evicts the entry lazily then.
//
//   total == used (ref > 0) + cached (ref == 0, entry) + free (ref == 0, no entry)
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/kv/block_hash.h"
#include "engine/kv/free_block_queue.h"

namespace folio {

using BlockId = int32_t;

struct PrefixMatch {
    BlockId block = -1;
    CacheEntryId entry = kRootEntry;
};

class BlockPool {
public:
    BlockPool(int64_t num_blocks, int block_size);

    int64_t num_blocks() const { return int64_t(ref_.size()); }
    int block_size() const { return block_size_; }
    int64_t num_free() const { return free_.size(); }    // ref 0, cached or not: what allocate() can take
    int64_t num_used() const { return num_blocks() - free_.size(); }
    int64_t num_cached_free() const { return cached_free_; }  // ref 0 and still holding an entry
    int64_t num_entries() const { return int64_t(entry_of_.size()) - empty_entries_; }
    int64_t evictions() const { return evictions_; }

    int ref_count(BlockId b) const { return ref_[size_t(b)]; }
    CacheEntryId entry(BlockId b) const { return entry_of_[size_t(b)]; }  // kRootEntry: none

    // Pops the least recently freed block (evicting its cache entry) and gives it ref count 1.
    // Throws std::logic_error when none is free: the scheduler plans so that this never happens.
    BlockId allocate();
    // One more holder. A free block (a prefix hit on a cached block) leaves the free queue.
    void retain(BlockId b);
    // One holder fewer; at zero the block joins the tail of the free queue, keeping its entry.
    void release(BlockId b);

    // The cached block holding exactly `tokens` after the prefix `parent`, if any.
    std::optional<PrefixMatch> find(CacheEntryId parent, std::span<const int32_t> tokens) const;
    // Makes held, full block `b` (holding `tokens` after `parent`) findable. When an equal entry
    // already exists (the same prefix computed twice), `b` stays unregistered and the existing
    // entry's id is returned: the caller uses it as the parent of its next block either way.
    CacheEntryId register_block(BlockId b, CacheEntryId parent, std::span<const int32_t> tokens);

    // Throws std::logic_error naming the first broken invariant (free queue <-> ref 0, entry index
    // consistent, counters). For tests; O(blocks).
    void check_invariants() const;

private:
    void evict(BlockId b);

    int block_size_;
    std::vector<int32_t> ref_;
    std::vector<CacheEntryId> entry_of_;     // per block, kRootEntry when none
    std::vector<CacheEntryId> parent_of_;    // per block, valid when it has an entry
    std::vector<int32_t> tokens_;            // per block, block_size ids, valid when it has an entry
    std::unordered_multimap<uint64_t, BlockId> index_;  // hash_block(parent, tokens) -> block
    FreeBlockQueue free_;
    CacheEntryId next_entry_ = 1;
    int64_t cached_free_ = 0;
    int64_t empty_entries_ = 0;  // blocks without an entry (so num_entries() is O(1))
    int64_t evictions_ = 0;
};

}  // namespace folio
