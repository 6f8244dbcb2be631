#pragma once
// Block tables of the sequences over one BlockPool: which physical blocks hold each sequence's KV,
// prefix-cache lookups, copy-on-write for shared blocks, and the counters the monitor shows.
//
// "Prepare this batch, then apply it" (llama.cpp's rule): a scheduler plans a step on a KvPlan, a
// virtual view of the pool that answers "does this fit?" without touching anything; apply() is the
// only call that takes, shares or copies blocks for a step. Between steps, commit() records the KV a
// forward pass wrote (registering newly full blocks in the prefix cache), free() returns a
// sequence's blocks, fork() shares them with a new sequence.
//
// Sliding window (Mistral v0.1): a query at position p attends keys [p - W + 1, p] only, and later
// queries only move that window forward, so a block whose keys all lie before the first key the
// sequence's next query can attend is never read again. commit() releases such leading blocks (and
// apply() never takes them for a prefix hit); their table entries become kReleasedBlock, so logical
// block i stays entry i. A released block returns to the pool like a freed one: other holders keep
// it, and its prefix-cache entry stays reusable until the block is popped for new tokens.
#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/kv/block_pool.h"
#include "engine/kv/kv_counters.h"
#include "engine/kv/kv_layout.h"

namespace folio {

using SeqId = uint64_t;

struct KvSequence {
    std::vector<BlockId> blocks;          // logical block i -> physical block, or kReleasedBlock
    std::vector<CacheEntryId> entries;    // prefix-cache entry of each full block registered so far
    int num_tokens = 0;                   // tokens whose KV is written
    int num_released = 0;                 // leading entries of `blocks` that are kReleasedBlock

    int num_held() const { return int(blocks.size()) - num_released; }
};

// Full blocks of a prompt found in the prefix cache; never the block holding the last token, which is
// always recomputed so the step yields its logits.
struct PrefixHit {
    std::vector<PrefixMatch> blocks;
    int lookup_tokens = 0;  // tokens of the sequence when it was looked up (for the hit rate)
};

struct BlockCopy {
    BlockId src = -1;
    BlockId dst = -1;
};

struct KvSequenceInfo {
    int blocks = 0;         // held (released entries of a sliding window are not counted)
    int shared_blocks = 0;  // also held by another sequence (one physical copy serves both)
    int tokens = 0;
};

class KvCacheManager;

// One step's KV needs, planned against a virtual view of the pool. Plan releases (preemptions) before
// any reservation. Copyable: a scheduler may try alternatives.
class KvPlan {
public:
    KvPlan() = default;  // plans nothing; only a plan from KvCacheManager::plan() can be applied

    // Blocks the plan can still hand out (free and evictable, after everything planned so far).
    int64_t free_blocks() const { return free_; }

    // Blocks a held sequence needs to write `n` more tokens: new blocks plus one copy when it would
    // write into a partly filled block it shares.
    int blocks_needed(SeqId seq, int n) const;
    // Blocks a new sequence needs for its prefix hit and the `n` tokens after it.
    int blocks_needed_new(const PrefixHit& hit, int n) const;
    // The most tokens (<= n) a held sequence can write within free_blocks().
    int max_tokens(SeqId seq, int n) const;

    // The most tokens (<= n) a held sequence can write using at most `block_limit` blocks.
    int max_tokens_within(SeqId seq, int n, int64_t block_limit) const;

    // Record the need when it fits while leaving `keep_free` blocks for others; false (nothing
    // recorded) when it does not.
    bool reserve(SeqId seq, int n, int64_t keep_free = 0);
    bool reserve_new(SeqId seq, const PrefixHit& hit, int n, int64_t keep_free = 0);
    // Plan to drop every block of a held sequence (preemption).
    void release(SeqId seq);

    bool releases(SeqId seq) const;
    bool reserves(SeqId seq) const;

private:
    friend class KvCacheManager;
    explicit KvPlan(const KvCacheManager& kv);
    int effective_ref(BlockId b) const;
    size_t first_taken_hit(const PrefixHit& hit) const;

    struct Reservation {
        SeqId seq = 0;
        int num_tokens = 0;
        bool is_new = false;
        PrefixHit hit;
    };
    const KvCacheManager* kv_ = nullptr;
    int64_t free_ = 0;
    std::unordered_map<BlockId, int> ref_delta_;
    std::vector<SeqId> releases_;
    std::vector<Reservation> reservations_;
};

class KvCacheManager {
public:
    // sliding_window: the model's attention window W in tokens (0: none); blocks that leave it are
    // released.
    KvCacheManager(int64_t num_blocks, int block_size, bool enable_prefix_caching, int sliding_window = 0);

    int block_size() const { return pool_.block_size(); }
    int sliding_window() const { return window_; }
    int64_t num_blocks() const { return pool_.num_blocks(); }
    bool prefix_caching() const { return prefix_caching_; }
    int blocks_for(int64_t tokens) const { return int((tokens + block_size() - 1) / block_size()); }
    // The first logical block a query at position `pos` or later can attend (0 without a window):
    // every block before it may be released.
    int first_live_block(int64_t pos) const { return folio::first_live_block(int(pos), window_, block_size()); }
    // The most blocks a sequence of `tokens` tokens holds at once when it runs a token at a time:
    // blocks_for(tokens), or under a window at most ceil((W - 1) / block_size) + 1. A pool smaller
    // than this can never run it.
    int64_t blocks_to_run(int64_t tokens) const { return folio::blocks_to_run(tokens, window_, block_size()); }

    // ---- queries ----
    bool holds(SeqId seq) const { return seqs_.count(seq) != 0; }
    const KvSequence& sequence(SeqId seq) const;  // throws std::out_of_range
    const std::unordered_map<SeqId, KvSequence>& sequences() const { return seqs_; }
    const BlockPool& pool() const { return pool_; }
    // Cached full blocks at the start of `tokens`, at most (size - 1) / block_size of them.
    PrefixHit find_prefix(std::span<const int32_t> tokens) const;

    // ---- prepare ----
    KvPlan plan() const { return KvPlan(*this); }

    // ---- apply ----
    // Releases, shares prefix hits, allocates, and copies on write, in that order. Returns the
    // copies the backend must make before the step's forward pass. Afterwards each reserved
    // sequence's table covers num_tokens + n tokens.
    std::vector<BlockCopy> apply(const KvPlan& plan);
    // The forward pass wrote `n` more tokens of `seq`; `tokens` is its whole token list (at least
    // num_tokens + n long). Registers blocks that became full in the prefix cache, then releases the
    // blocks that left the sliding window.
    void commit(SeqId seq, int n, std::span<const int32_t> tokens);
    // Returns every held block of `seq` (tail first, so a prefix outlives its tail in the LRU queue).
    // Unknown ids are ignored.
    void free(SeqId seq);
    // `child` shares all of `parent`'s held blocks (released entries stay released); the first
    // write into a shared, partly filled block copies it.
    void fork(SeqId parent, SeqId child);

    // ---- counters ----
    KvCounters counters() const;
    KvSequenceInfo info(SeqId seq) const;
    // Throws std::logic_error naming the first broken invariant: pool invariants, ref counts equal
    // to the number of tables holding each block, no block twice in one table, tables sized to
    // their tokens, cached entries matching the tables, exactly the blocks before the window
    // released. Valid between steps (after commit), not between apply() and commit(). For tests;
    // O(blocks).
    void check_invariants() const;

private:
    friend class KvPlan;
    void grow(KvSequence& s, int n, std::vector<BlockCopy>& copies);
    void release_out_of_window(KvSequence& s);

    BlockPool pool_;
    bool prefix_caching_;
    int window_ = 0;
    std::unordered_map<SeqId, KvSequence> seqs_;
    int64_t prefix_lookup_tokens_ = 0;
    int64_t prefix_hit_tokens_ = 0;
    int64_t cow_copies_ = 0;
    // Scratch for counters(): per block, the most slots any holder fills.
    mutable std::vector<int32_t> fill_scratch_;
};

}  // namespace folio
