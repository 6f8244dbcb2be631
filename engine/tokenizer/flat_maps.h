#pragma once
// Open-addressing hash maps for the BPE hot path: no allocation per lookup, keys in one arena,
// linear probing over a power-of-two table kept at most ~2/3 full.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace folio {

inline uint64_t mix64(uint64_t h) {  // splitmix64's finalizer
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 31;
    return h;
}

inline uint64_t hash_bytes(std::string_view s) {
    const char* p = s.data();
    size_t n = s.size();
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    while (n >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        h = (h ^ v) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    // The tail without a partial copy into a stack word (which stalls store forwarding): two
    // overlapping 4-byte loads, or three single bytes.
    if (n >= 4) {
        uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + n - 4, 4);
        h = (h ^ ((uint64_t(hi) << 32) | lo)) * 0xC4CEB9FE1A85EC53ull;
    } else if (n > 0) {
        const uint64_t v = (uint64_t(uint8_t(p[0])) << 16) | (uint64_t(uint8_t(p[n >> 1])) << 8) | uint8_t(p[n - 1]);
        h = (h ^ v) * 0xC4CEB9FE1A85EC53ull;
    }
    return mix64(h);
}

inline size_t table_size_for(size_t n) {
    size_t cap = 16;
    while (cap < n + n / 2 + 1) cap <<= 1;
    return cap;
}

// Byte string -> int. insert() overwrites an existing key (as a JSON object's later duplicate does).
class StringIdMap {
public:
    void reserve(size_t n) { rehash(table_size_for(n)); }

    void insert(std::string_view key, int value) {
        if (slots_.empty() || (size_ + 1) * 3 > slots_.size() * 2) rehash(table_size_for((size_ + 1) * 2));
        const uint64_t h = hash_bytes(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.value == kEmpty) {
                s = Slot{uint32_t(h >> 32), uint32_t(arena_.size()), uint32_t(key.size()), value};
                arena_.append(key);
                ++size_;
                return;
            }
            if (s.tag == uint32_t(h >> 32) && key_of(s) == key) {
                s.value = value;
                return;
            }
        }
    }

    // -1 when absent.
    int find(std::string_view key) const {
        if (slots_.empty()) return -1;
        const uint64_t h = hash_bytes(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.value == kEmpty) return -1;
            if (s.tag == uint32_t(h >> 32) && s.len == key.size() &&
                std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0)
                return s.value;
        }
    }

    size_t size() const { return size_; }

private:
    static constexpr int kEmpty = INT32_MIN;
    struct Slot {
        uint32_t tag = 0, offset = 0, len = 0;
        int value = kEmpty;
    };
    std::string_view key_of(const Slot& s) const { return std::string_view(arena_).substr(s.offset, s.len); }

    void rehash(size_t cap) {
        if (cap <= slots_.size()) return;
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(cap, Slot{});
        mask_ = cap - 1;
        for (const Slot& s : old) {
            if (s.value == kEmpty) continue;
            const uint64_t h = hash_bytes(key_of(s));
            size_t i = h & mask_;
            while (slots_[i].value != kEmpty) i = (i + 1) & mask_;
            slots_[i] = s;
        }
    }

    std::vector<Slot> slots_;
    std::string arena_;
    size_t mask_ = 0, size_ = 0;
};

// A BPE merge: the pair's rank (its line in the merges list) and the id of the merged token.
struct MergeRule {
    uint32_t rank = UINT32_MAX;
    int new_id = -1;
};

// (left id, right id) -> MergeRule. insert() overwrites: a later duplicate merge wins, as when the
// Rust library collects the merges into its map.
class PairMap {
public:
    void reserve(size_t n) { rehash(table_size_for(n)); }

    void insert(uint32_t a, uint32_t b, MergeRule rule) {
        if (slots_.empty() || (size_ + 1) * 3 > slots_.size() * 2) rehash(table_size_for((size_ + 1) * 2));
        const uint64_t key = pack(a, b);
        for (size_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.key == kEmpty) {
                s = Slot{key, rule};
                ++size_;
                return;
            }
            if (s.key == key) {
                s.rule = rule;
                return;
            }
        }
    }

    // nullptr when the pair has no merge.
    const MergeRule* find(uint32_t a, uint32_t b) const {
        if (slots_.empty()) return nullptr;
        const uint64_t key = pack(a, b);
        for (size_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.key == key) return &s.rule;
            if (s.key == kEmpty) return nullptr;
        }
    }

    size_t size() const { return size_; }

private:
    static constexpr uint64_t kEmpty = ~uint64_t(0);
    struct Slot {
        uint64_t key = kEmpty;
        MergeRule rule;
    };
    static uint64_t pack(uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; }

    void rehash(size_t cap) {
        if (cap <= slots_.size()) return;
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(cap, Slot{});
        mask_ = cap - 1;
        for (const Slot& s : old) {
            if (s.key == kEmpty) continue;
            size_t i = mix64(s.key) & mask_;
            while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
            slots_[i] = s;
        }
    }

    std::vector<Slot> slots_;
    size_t mask_ = 0, size_ = 0;
};

}  // namespace folio
