#pragma once
// The prefix-cache key of one full KV block: a strong 64-bit hash of (parent, token ids of the block).
// It only picks a bucket: a hit is confirmed by comparing the parent and every token id exactly, so a
// collision can cost a lookup, never serve wrong KV.
#include <cstdint>
#include <span>

namespace folio {

// Identity of a prefix-cache entry. Ids are handed out once and never reused, so "same parent id"
// means "same cached prefix", exactly. 0 is the root (the empty prefix before a sequence's first block).
using CacheEntryId = uint64_t;
inline constexpr CacheEntryId kRootEntry = 0;

uint64_t hash_block(CacheEntryId parent, std::span<const int32_t> tokens);

}  // namespace folio
