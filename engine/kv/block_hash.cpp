#include "engine/kv/block_hash.h"

namespace folio {

namespace {

// 64x64->128 multiply folded to 64 bits: a fast mixer with full avalanche over both inputs.
inline uint64_t fold_mul(uint64_t a, uint64_t b) {
    const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
    return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

constexpr uint64_t kP0 = 0xa0761d6478bd642fULL;
constexpr uint64_t kP1 = 0xe7037ed1a0b428dbULL;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ULL;
constexpr uint64_t kP3 = 0x589965cc75374cc3ULL;

}  // namespace

uint64_t hash_block(CacheEntryId parent, std::span<const int32_t> tokens) {
    uint64_t h = fold_mul(parent ^ kP0, kP1) ^ (uint64_t(tokens.size()) * kP2);
    size_t i = 0;
    // Two token ids per 64-bit word; the running state enters every multiply so order matters.
    for (; i + 1 < tokens.size(); i += 2) {
        const uint64_t w = uint64_t(uint32_t(tokens[i])) | (uint64_t(uint32_t(tokens[i + 1])) << 32);
        h = fold_mul(h ^ kP1, w ^ kP3);
    }
    if (i < tokens.size()) h = fold_mul(h ^ kP2, uint64_t(uint32_t(tokens[i])) ^ kP0);
    return fold_mul(h ^ kP3, kP0 ^ 0x9e3779b97f4a7c15ULL);
}

}  // namespace folio
