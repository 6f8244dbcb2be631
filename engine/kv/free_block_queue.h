#pragma once
// The free blocks of a pool in LRU order: an intrusive doubly linked list over block ids (links kept
// in two arrays, one slot per block, plus a sentinel), so pop-front, remove-anywhere and append are
// all O(1) and nothing is allocated after construction. The head is the block freed longest ago: it
// is reused (and its prefix-cache entry evicted) first.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace folio {

class FreeBlockQueue {
public:
    // All blocks 0..num_blocks-1 start in the queue, in id order.
    explicit FreeBlockQueue(int64_t num_blocks);

    int64_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    bool contains(int32_t block) const { return prev_[size_t(block)] != kDetached; }

    int32_t front() const;      // -1 when empty
    int32_t pop_front();        // precondition: not empty
    void remove(int32_t block); // precondition: contains(block)
    void push_back(int32_t block);  // precondition: !contains(block)

    // In queue order, for invariant checks and tests.
    std::vector<int32_t> to_vector() const;

private:
    static constexpr int32_t kDetached = -2;
    int32_t sentinel() const { return int32_t(prev_.size()) - 1; }

    // prev_/next_ have num_blocks + 1 entries; the last one is the sentinel. A detached block has
    // prev_ == kDetached.
    std::vector<int32_t> prev_;
    std::vector<int32_t> next_;
    int64_t size_ = 0;
};

}  // namespace folio
