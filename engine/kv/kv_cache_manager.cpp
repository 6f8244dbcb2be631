#include "engine/kv/kv_cache_manager.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace folio {

// ---------------------------------------------------------------- KvPlan

KvPlan::KvPlan(const KvCacheManager& kv) : kv_(&kv), free_(kv.pool_.num_free()) {}

int KvPlan::effective_ref(BlockId b) const {
    const auto it = ref_delta_.find(b);
    return kv_->pool_.ref_count(b) + (it == ref_delta_.end() ? 0 : it->second);
}

int KvPlan::blocks_needed(SeqId seq, int n) const {
    if (n <= 0) return 0;
    const KvSequence& s = kv_->sequence(seq);
    const int bs = kv_->block_size();
    int need = kv_->blocks_for(int64_t(s.num_tokens) + n) - int(s.blocks.size());
    if (s.num_tokens % bs != 0 && effective_ref(s.blocks.back()) > 1) ++need;  // copy-on-write
    return need;
}

int KvPlan::blocks_needed_new(const PrefixHit& hit, int n) const {
    const int64_t hit_tokens = int64_t(hit.blocks.size()) * kv_->block_size();
    int need = 0;
    for (size_t i = first_taken_hit(hit); i < hit.blocks.size(); ++i)
        if (effective_ref(hit.blocks[i].block) == 0) ++need;  // a cached free block leaves the free queue
    return need + kv_->blocks_for(hit_tokens + n) - int(hit.blocks.size());
}

int KvPlan::max_tokens(SeqId seq, int n) const { return max_tokens_within(seq, n, free_); }

int KvPlan::max_tokens_within(SeqId seq, int n, int64_t block_limit) const {
    if (n <= 0) return 0;
    if (blocks_needed(seq, n) <= block_limit) return n;
    const KvSequence& s = kv_->sequence(seq);
    const int bs = kv_->block_size();
    const bool cow = s.num_tokens % bs != 0 && effective_ref(s.blocks.back()) > 1;
    const int64_t blocks = block_limit - (cow ? 1 : 0);
    if (blocks < 0) return 0;
    // Tokens that fit in the room left in the last block plus `blocks` new ones.
    const int64_t room = int64_t(s.blocks.size()) * bs - s.num_tokens;
    return int(std::min<int64_t>(n, room + blocks * bs));
}

bool KvPlan::reserve(SeqId seq, int n, int64_t keep_free) {
    if (releases(seq) || reserves(seq)) throw std::logic_error("KvPlan::reserve: sequence already planned this step");
    const int need = blocks_needed(seq, n);
    if (need > free_ - keep_free) return false;
    free_ -= need;
    const KvSequence& s = kv_->sequence(seq);
    if (n > 0 && s.num_tokens % kv_->block_size() != 0 && effective_ref(s.blocks.back()) > 1)
        --ref_delta_[s.blocks.back()];  // the copy leaves the shared block to its other holders
    reservations_.push_back({seq, n, false, {}});
    return true;
}

bool KvPlan::reserve_new(SeqId seq, const PrefixHit& hit, int n, int64_t keep_free) {
    if (kv_->holds(seq) || reserves(seq)) throw std::logic_error("KvPlan::reserve_new: sequence already holds blocks");
    const int need = blocks_needed_new(hit, n);
    if (need > free_ - keep_free) return false;
    free_ -= need;
    for (size_t i = first_taken_hit(hit); i < hit.blocks.size(); ++i) ++ref_delta_[hit.blocks[i].block];
    reservations_.push_back({seq, n, true, hit});
    return true;
}

void KvPlan::release(SeqId seq) {
    if (releases(seq)) return;
    if (reserves(seq)) throw std::logic_error("KvPlan::release: release a sequence before reserving for others");
    for (BlockId b : kv_->sequence(seq).blocks)
        if (b != kReleasedBlock && --ref_delta_[b] + kv_->pool_.ref_count(b) == 0) ++free_;
    releases_.push_back(seq);
}

bool KvPlan::releases(SeqId seq) const { return std::find(releases_.begin(), releases_.end(), seq) != releases_.end(); }

bool KvPlan::reserves(SeqId seq) const {
    return std::any_of(reservations_.begin(), reservations_.end(), [&](const Reservation& r) { return r.seq == seq; });
}

size_t KvPlan::first_taken_hit(const PrefixHit& hit) const {
    // Hits before the window of the new sequence's first query are never read, so never taken.
    return size_t(kv_->first_live_block(int64_t(hit.blocks.size()) * kv_->block_size()));
}

// ---------------------------------------------------------------- KvCacheManager

KvCacheManager::KvCacheManager(int64_t num_blocks, int block_size, bool enable_prefix_caching, int sliding_window)
    : pool_(num_blocks, block_size), prefix_caching_(enable_prefix_caching), window_(std::max(0, sliding_window)) {}


const KvSequence& KvCacheManager::sequence(SeqId seq) const {
    const auto it = seqs_.find(seq);
    if (it == seqs_.end()) throw std::out_of_range("KvCacheManager: sequence " + std::to_string(seq) + " holds no blocks");
    return it->second;
}

PrefixHit KvCacheManager::find_prefix(std::span<const int32_t> tokens) const {
    PrefixHit hit;
    hit.lookup_tokens = int(tokens.size());
    if (!prefix_caching_ || tokens.empty()) return hit;
    const size_t bs = size_t(block_size());
    const size_t cap = (tokens.size() - 1) / bs;  // the last token is always recomputed
    CacheEntryId parent = kRootEntry;
    for (size_t i = 0; i < cap; ++i) {
        const auto m = pool_.find(parent, tokens.subspan(i * bs, bs));
        if (!m) break;
        hit.blocks.push_back(*m);
        parent = m->entry;
    }
    return hit;
}

void KvCacheManager::grow(KvSequence& s, int n, std::vector<BlockCopy>& copies) {
    if (n <= 0) return;
    const int bs = block_size();
    if (s.num_tokens % bs != 0) {
        BlockId& last = s.blocks.back();
        if (pool_.ref_count(last) > 1) {
            const BlockId copy = pool_.allocate();
            copies.push_back({last, copy});
            pool_.release(last);
            last = copy;
            ++cow_copies_;
            // The copy holds a partial block: it has no cache entry, and neither did the original.
        }
    }
    const int target = blocks_for(int64_t(s.num_tokens) + n);
    while (int(s.blocks.size()) < target) s.blocks.push_back(pool_.allocate());
}

std::vector<BlockCopy> KvCacheManager::apply(const KvPlan& plan) {
    if (plan.kv_ != this) throw std::logic_error("KvCacheManager::apply: plan of another cache");
    std::vector<BlockCopy> copies;
    for (SeqId seq : plan.releases_) free(seq);
    // Share every prefix hit before any allocation pops the free queue, so no hit is evicted.
    for (const auto& r : plan.reservations_) {
        if (!r.is_new) continue;
        KvSequence& s = seqs_[r.seq];
        s.num_tokens = int(r.hit.blocks.size()) * block_size();
        // Hits before the window of the first query are never read: only their entries are kept
        // (as the parents of the blocks registered after them).
        s.num_released = first_live_block(s.num_tokens);
        for (size_t i = 0; i < r.hit.blocks.size(); ++i) {
            const PrefixMatch& m = r.hit.blocks[i];
            if (int(i) < s.num_released) {
                s.blocks.push_back(kReleasedBlock);
            } else {
                pool_.retain(m.block);
                s.blocks.push_back(m.block);
            }
            s.entries.push_back(m.entry);
        }
        prefix_lookup_tokens_ += r.hit.lookup_tokens;
        prefix_hit_tokens_ += s.num_tokens;
    }
    for (const auto& r : plan.reservations_) grow(seqs_.at(r.seq), r.num_tokens, copies);
    return copies;
}

void KvCacheManager::commit(SeqId seq, int n, std::span<const int32_t> tokens) {
    KvSequence& s = seqs_.at(seq);
    if (int64_t(s.num_tokens) + n > int64_t(s.blocks.size()) * block_size())
        throw std::logic_error("KvCacheManager::commit: more tokens than the block table covers");
    if (int64_t(tokens.size()) < int64_t(s.num_tokens) + n)
        throw std::logic_error("KvCacheManager::commit: token list shorter than the KV written");
    s.num_tokens += n;
    if (prefix_caching_) {
        const size_t bs = size_t(block_size());
        for (size_t i = s.entries.size(); (i + 1) * bs <= size_t(s.num_tokens); ++i) {
            const CacheEntryId parent = i == 0 ? kRootEntry : s.entries[i - 1];
            s.entries.push_back(pool_.register_block(s.blocks[i], parent, tokens.subspan(i * bs, bs)));
        }
    }
    // After registering: a released block keeps its entry in the LRU queue for other prompts.
    release_out_of_window(s);
}

void KvCacheManager::release_out_of_window(KvSequence& s) {
    // Oldest first, so the LRU queue evicts the start of the conversation first.
    const int live = std::min(first_live_block(s.num_tokens), int(s.blocks.size()));
    for (; s.num_released < live; ++s.num_released) {
        BlockId& b = s.blocks[size_t(s.num_released)];
        pool_.release(b);
        b = kReleasedBlock;
    }
}

void KvCacheManager::free(SeqId seq) {
    const auto it = seqs_.find(seq);
    if (it == seqs_.end()) return;
    for (auto b = it->second.blocks.rbegin(); b != it->second.blocks.rend(); ++b)
        if (*b != kReleasedBlock) pool_.release(*b);
    seqs_.erase(it);
}

void KvCacheManager::fork(SeqId parent, SeqId child) {
    if (holds(child)) throw std::logic_error("KvCacheManager::fork: child already holds blocks");
    KvSequence copy = sequence(parent);
    for (BlockId b : copy.blocks)
        if (b != kReleasedBlock) pool_.retain(b);
    seqs_.emplace(child, std::move(copy));
}

KvCounters KvCacheManager::counters() const {
    KvCounters c;
    c.block_size = block_size();
    c.blocks_total = pool_.num_blocks();
    c.blocks_used = pool_.num_used();
    c.blocks_cached = pool_.num_cached_free();
    c.blocks_free = pool_.num_free() - pool_.num_cached_free();
    c.slots_allocated = c.blocks_used * block_size();
    // A shared block is one physical block: count its fill once, as its fullest holder sees it.
    fill_scratch_.resize(size_t(pool_.num_blocks()));
    std::vector<BlockId> touched;
    for (const auto& [id, s] : seqs_) {
        for (size_t i = size_t(s.num_released); i < s.blocks.size(); ++i) {
            const int fill = int(std::clamp<int64_t>(int64_t(s.num_tokens) - int64_t(i) * block_size(), 0, block_size()));
            int32_t& f = fill_scratch_[size_t(s.blocks[i])];
            if (f == 0) touched.push_back(s.blocks[i]);
            f = std::max(f, fill + 1);  // stored +1 so that 0 means "not seen"
        }
    }
    for (BlockId b : touched) {
        c.slots_filled += fill_scratch_[size_t(b)] - 1;
        fill_scratch_[size_t(b)] = 0;
    }
    c.prefix_lookup_tokens = prefix_lookup_tokens_;
    c.prefix_hit_tokens = prefix_hit_tokens_;
    c.evictions = pool_.evictions();
    c.cow_copies = cow_copies_;
    return c;
}

KvSequenceInfo KvCacheManager::info(SeqId seq) const {
    KvSequenceInfo out;
    const auto it = seqs_.find(seq);
    if (it == seqs_.end()) return out;
    out.blocks = it->second.num_held();
    out.tokens = it->second.num_tokens;
    for (BlockId b : it->second.blocks)
        if (b != kReleasedBlock && pool_.ref_count(b) > 1) ++out.shared_blocks;
    return out;
}

void KvCacheManager::check_invariants() const {
    pool_.check_invariants();
    auto fail = [](const std::string& what) { throw std::logic_error("KvCacheManager invariant: " + what); };
    std::vector<int> holders(size_t(pool_.num_blocks()), 0);
    for (const auto& [id, s] : seqs_) {
        const std::string name = "sequence " + std::to_string(id);
        if (int(s.blocks.size()) != blocks_for(s.num_tokens))
            fail(name + " holds " + std::to_string(s.blocks.size()) + " blocks for " + std::to_string(s.num_tokens) + " tokens");
        // Under a window exactly the blocks before the next query's window are released (eagerly, by
        // commit() and apply()); without one, none.
        const int live = std::min(first_live_block(s.num_tokens), int(s.blocks.size()));
        if (s.num_released != live)
            fail(name + " has " + std::to_string(s.num_released) + " released blocks at " + std::to_string(s.num_tokens) +
                 " tokens; the window allows exactly " + std::to_string(live));
        for (size_t i = 0; i < s.blocks.size(); ++i)
            if ((s.blocks[i] == kReleasedBlock) != (int(i) < s.num_released))
                fail(name + " block " + std::to_string(i) + (s.blocks[i] == kReleasedBlock ? " is released inside the window" : " is held before the window"));
        std::vector<BlockId> sorted(s.blocks.begin() + s.num_released, s.blocks.end());
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) fail(name + " holds a block twice");
        for (BlockId b : sorted) {
            if (b < 0 || b >= pool_.num_blocks()) fail(name + " holds block id " + std::to_string(b) + " out of range");
            ++holders[size_t(b)];
        }
        if (s.entries.size() > s.blocks.size() || int64_t(s.entries.size()) * block_size() > s.num_tokens)
            fail(name + " has cache entries for blocks that are not full");
        for (size_t i = size_t(s.num_released); i < s.entries.size(); ++i) {
            // A block registered under this entry is either this very block, or a duplicate of it.
            const CacheEntryId e = pool_.entry(s.blocks[i]);
            if (e != kRootEntry && e != s.entries[i]) fail(name + " block " + std::to_string(i) + " carries another prefix entry");
        }
    }
    for (BlockId b = 0; b < BlockId(holders.size()); ++b)
        if (holders[size_t(b)] != pool_.ref_count(b))
            fail("block " + std::to_string(b) + " has ref count " + std::to_string(pool_.ref_count(b)) + " but " +
                 std::to_string(holders[size_t(b)]) + " holders");
    const KvCounters c = counters();
    if (c.blocks_used + c.blocks_cached + c.blocks_free != c.blocks_total) fail("used + cached + free != total");
}

}  // namespace folio
