#include "engine/kv/block_pool.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace folio {

BlockPool::BlockPool(int64_t num_blocks, int block_size)
    : block_size_(block_size),
      ref_(size_t(num_blocks), 0),
      entry_of_(size_t(num_blocks), kRootEntry),
      parent_of_(size_t(num_blocks), kRootEntry),
      tokens_(size_t(num_blocks) * size_t(block_size), 0),
      free_(num_blocks),
      empty_entries_(num_blocks) {
    if (block_size <= 0) throw std::invalid_argument("BlockPool: block size must be positive");
}

BlockId BlockPool::allocate() {
    if (free_.empty()) throw std::logic_error("BlockPool::allocate: no free block (the scheduler planned more than the pool holds)");
    const BlockId b = free_.pop_front();
    if (entry_of_[size_t(b)] != kRootEntry) {
        --cached_free_;
        evict(b);
    }
    ref_[size_t(b)] = 1;
    return b;
}

void BlockPool::retain(BlockId b) {
    if (ref_[size_t(b)]++ == 0) {
        free_.remove(b);
        if (entry_of_[size_t(b)] != kRootEntry) --cached_free_;
    }
}

void BlockPool::release(BlockId b) {
    if (ref_[size_t(b)] <= 0) throw std::logic_error("BlockPool::release of block " + std::to_string(b) + " with no holder");
    if (--ref_[size_t(b)] == 0) {
        free_.push_back(b);
        if (entry_of_[size_t(b)] != kRootEntry) ++cached_free_;
    }
}

std::optional<PrefixMatch> BlockPool::find(CacheEntryId parent, std::span<const int32_t> tokens) const {
    if (int(tokens.size()) != block_size_) return std::nullopt;
    const auto [lo, hi] = index_.equal_range(hash_block(parent, tokens));
    for (auto it = lo; it != hi; ++it) {
        const BlockId b = it->second;
        if (parent_of_[size_t(b)] != parent) continue;
        const int32_t* stored = tokens_.data() + size_t(b) * size_t(block_size_);
        if (std::equal(tokens.begin(), tokens.end(), stored)) return PrefixMatch{b, entry_of_[size_t(b)]};
    }
    return std::nullopt;
}

CacheEntryId BlockPool::register_block(BlockId b, CacheEntryId parent, std::span<const int32_t> tokens) {
    if (int(tokens.size()) != block_size_) throw std::logic_error("BlockPool::register_block: not a full block");
    if (ref_[size_t(b)] <= 0) throw std::logic_error("BlockPool::register_block: block is not held");
    if (entry_of_[size_t(b)] != kRootEntry) {
        // Already registered (it came from a prefix hit or a fork): same content by construction.
        return entry_of_[size_t(b)];
    }
    if (const auto existing = find(parent, tokens)) return existing->entry;
    const CacheEntryId id = next_entry_++;
    entry_of_[size_t(b)] = id;
    parent_of_[size_t(b)] = parent;
    std::copy(tokens.begin(), tokens.end(), tokens_.begin() + ptrdiff_t(size_t(b) * size_t(block_size_)));
    index_.emplace(hash_block(parent, tokens), b);
    --empty_entries_;
    return id;
}

void BlockPool::evict(BlockId b) {
    const int32_t* stored = tokens_.data() + size_t(b) * size_t(block_size_);
    const auto [lo, hi] = index_.equal_range(hash_block(parent_of_[size_t(b)], {stored, size_t(block_size_)}));
    for (auto it = lo; it != hi; ++it) {
        if (it->second == b) {
            index_.erase(it);
            break;
        }
    }
    entry_of_[size_t(b)] = kRootEntry;
    parent_of_[size_t(b)] = kRootEntry;
    ++empty_entries_;
    ++evictions_;
}

void BlockPool::check_invariants() const {
    auto fail = [](const std::string& what) { throw std::logic_error("BlockPool invariant: " + what); };
    int64_t free_count = 0, cached_free = 0, entries = 0;
    for (BlockId b = 0; b < BlockId(ref_.size()); ++b) {
        const int r = ref_[size_t(b)];
        if (r < 0) fail("negative ref count on block " + std::to_string(b));
        if ((r == 0) != free_.contains(b)) fail("block " + std::to_string(b) + " ref " + std::to_string(r) + " but free-queue membership disagrees");
        if (r == 0) ++free_count;
        if (entry_of_[size_t(b)] != kRootEntry) {
            ++entries;
            if (r == 0) ++cached_free;
            const int32_t* stored = tokens_.data() + size_t(b) * size_t(block_size_);
            const auto m = find(parent_of_[size_t(b)], {stored, size_t(block_size_)});
            if (!m || m->block != b) fail("cached block " + std::to_string(b) + " is not findable by its own key");
        }
    }
    if (free_count != free_.size()) fail("free queue size " + std::to_string(free_.size()) + " != blocks with ref 0 " + std::to_string(free_count));
    if (int64_t(free_.to_vector().size()) != free_.size()) fail("free queue links disagree with its size");
    if (cached_free != cached_free_) fail("cached-free counter " + std::to_string(cached_free_) + " != " + std::to_string(cached_free));
    if (entries != int64_t(index_.size())) fail("index holds " + std::to_string(index_.size()) + " keys for " + std::to_string(entries) + " cached blocks");
    if (entries != num_entries()) fail("entry counter disagrees");
}

}  // namespace folio
