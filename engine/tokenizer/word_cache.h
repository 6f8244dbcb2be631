#pragma once
// Pre-token -> ids, for the words a text repeats. Bounded: when full it starts over (cheaper than
// LRU bookkeeping, and a text's frequent words come back at once). The table grows with the words
// it holds, so that a few thousand words stay in a cache-friendly few hundred KB. Not thread-safe:
// its owner guards it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tokenizer/flat_maps.h"

namespace folio {

class WordCache {
public:
    static constexpr size_t kMaxWordBytes = 256;  // longer pre-tokens are not kept (as the Rust library)

    explicit WordCache(size_t max_entries = 1 << 16) : max_entries_(max_entries) { clear(); }

    // Appends the cached ids of `word` to `out`; false when absent.
    bool find(std::string_view word, std::vector<int>& out) const {
        const uint64_t h = hash_bytes(word);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            const Entry& e = entries_[i];
            if (e.key_len == kEmpty) return false;
            if (e.hash == h && e.key_len == word.size() &&
                std::memcmp(keys_.data() + e.key_offset, word.data(), word.size()) == 0) {
                out.insert(out.end(), ids_.begin() + e.ids_offset, ids_.begin() + e.ids_offset + e.ids_len);
                return true;
            }
        }
    }

    void insert(std::string_view word, const int* ids, size_t n) {
        if (word.size() > kMaxWordBytes) return;
        if (size_ >= max_entries_) clear();
        if ((size_ + 1) * 2 > entries_.size()) grow();
        const uint64_t h = hash_bytes(word);
        size_t i = h & mask_;
        while (entries_[i].key_len != kEmpty) {
            if (entries_[i].hash == h && entries_[i].key_len == word.size() &&
                std::memcmp(keys_.data() + entries_[i].key_offset, word.data(), word.size()) == 0)
                return;
            i = (i + 1) & mask_;
        }
        entries_[i] = Entry{h, uint32_t(keys_.size()), uint32_t(word.size()), uint32_t(ids_.size()), uint32_t(n)};
        keys_.append(word);
        ids_.insert(ids_.end(), ids, ids + n);
        ++size_;
    }

    void clear() {
        entries_.assign(kInitialSlots, Entry{});
        mask_ = kInitialSlots - 1;
        keys_.clear();
        ids_.clear();
        size_ = 0;
    }

    size_t size() const { return size_; }

private:
    static constexpr uint32_t kEmpty = UINT32_MAX;
    static constexpr size_t kInitialSlots = 1024;

    void grow() {
        std::vector<Entry> old = std::move(entries_);
        entries_.assign(old.size() * 2, Entry{});
        mask_ = entries_.size() - 1;
        for (const Entry& e : old) {
            if (e.key_len == kEmpty) continue;
            size_t i = e.hash & mask_;
            while (entries_[i].key_len != kEmpty) i = (i + 1) & mask_;
            entries_[i] = e;
        }
    }

    struct Entry {
        uint64_t hash = 0;
        uint32_t key_offset = 0, key_len = kEmpty, ids_offset = 0, ids_len = 0;
    };
    size_t max_entries_;
    std::vector<Entry> entries_;
    std::string keys_;
    std::vector<int> ids_;
    size_t mask_ = 0, size_ = 0;
};

}  // namespace folio
