#include "engine/kv/free_block_queue.h"

#include <stdexcept>

namespace folio {

FreeBlockQueue::FreeBlockQueue(int64_t num_blocks)
    : prev_(size_t(num_blocks) + 1), next_(size_t(num_blocks) + 1), size_(num_blocks) {
    if (num_blocks < 0 || num_blocks >= INT32_MAX) throw std::invalid_argument("FreeBlockQueue: bad block count");
    const int32_t s = sentinel();
    for (int32_t b = 0; b < s; ++b) {
        prev_[size_t(b)] = b == 0 ? s : b - 1;
        next_[size_t(b)] = b + 1;  // the last block points at the sentinel (== s)
    }
    prev_[size_t(s)] = s == 0 ? s : s - 1;
    next_[size_t(s)] = s == 0 ? s : 0;
}

int32_t FreeBlockQueue::front() const { return size_ == 0 ? -1 : next_[size_t(sentinel())]; }

int32_t FreeBlockQueue::pop_front() {
    if (size_ == 0) throw std::logic_error("FreeBlockQueue::pop_front on an empty queue");
    const int32_t b = next_[size_t(sentinel())];
    remove(b);
    return b;
}

void FreeBlockQueue::remove(int32_t b) {
    if (!contains(b)) throw std::logic_error("FreeBlockQueue::remove of a block that is not free");
    const int32_t p = prev_[size_t(b)];
    const int32_t n = next_[size_t(b)];
    next_[size_t(p)] = n;
    prev_[size_t(n)] = p;
    prev_[size_t(b)] = kDetached;
    next_[size_t(b)] = kDetached;
    --size_;
}

void FreeBlockQueue::push_back(int32_t b) {
    if (contains(b)) throw std::logic_error("FreeBlockQueue::push_back of a block that is already free");
    const int32_t s = sentinel();
    const int32_t last = prev_[size_t(s)];
    next_[size_t(last)] = b;
    prev_[size_t(b)] = last;
    next_[size_t(b)] = s;
    prev_[size_t(s)] = b;
    ++size_;
}

std::vector<int32_t> FreeBlockQueue::to_vector() const {
    std::vector<int32_t> out;
    out.reserve(size_t(size_));
    for (int32_t b = next_[size_t(sentinel())]; b != sentinel(); b = next_[size_t(b)]) out.push_back(b);
    return out;
}

}  // namespace folio
