#include "app/bench/memory_bandwidth.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>

#include "engine/core/thread_pool.h"

namespace folio::bench {

namespace {

// Eight independent accumulators so the adds never wait on each other; the compiler vectorises it.
uint64_t sum_words(const uint64_t* p, size_t n) {
    uint64_t a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; ++k) a[k] += p[i + size_t(k)];
    uint64_t s = 0;
    for (; i < n; ++i) s += p[i];
    for (uint64_t x : a) s += x;
    return s;
}

// On 2 MiB boundaries with transparent huge pages requested, as the CPU backend keeps its weights
// (engine/cpu/weight_arena): on 4 KiB pages the same sum runs far slower (TLB misses stop the
// prefetchers), and the fraction of bandwidth the decode reaches would be flattered.
unsigned char* alloc(size_t bytes) {
    constexpr size_t kHugePage = size_t(2) << 20;
    const size_t reserved = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, reserved);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, reserved, MADV_HUGEPAGE);  // advice only: without THP the probe still runs, on small pages
#endif
    return static_cast<unsigned char*>(p);
}

}  // namespace

MemoryBandwidth::MemoryBandwidth(size_t bytes, ThreadPool& pool) : bytes_(bytes / 4096 * 4096), pool_(pool) {
    read_buf_ = alloc(bytes_);
    src_ = alloc(bytes_ / 2);
    dst_ = alloc(bytes_ / 2);
    // Touch every page (from the threads that will read them) so no page fault is timed.
    const int64_t parts = pool_.size();
    pool_.run(parts, [&](int64_t t) {
        const size_t b = bytes_ / size_t(parts) * size_t(t), e = t + 1 == parts ? bytes_ : bytes_ / size_t(parts) * size_t(t + 1);
        for (size_t i = b; i < e; ++i) read_buf_[i] = static_cast<unsigned char>(i * 131u);
        const size_t h = bytes_ / 2, hb = h / size_t(parts) * size_t(t), he = t + 1 == parts ? h : h / size_t(parts) * size_t(t + 1);
        std::memset(src_ + hb, 1, he - hb);
        std::memset(dst_ + hb, 0, he - hb);
    });
}

MemoryBandwidth::~MemoryBandwidth() {
    std::free(read_buf_);
    std::free(src_);
    std::free(dst_);
}

double MemoryBandwidth::read_gbps() {
    const int64_t parts = pool_.size();
    const size_t words = bytes_ / 8;
    std::atomic<uint64_t> sink{0};
    const auto t0 = std::chrono::steady_clock::now();
    // Small slices handed out dynamically: a thread that wakes late does not leave a core idle.
    pool_.parallel_for(int64_t(words), int64_t(words / size_t(parts * 4)) + 1, [&](int64_t b, int64_t e) {
        sink += sum_words(reinterpret_cast<const uint64_t*>(read_buf_) + b, size_t(e - b));
    });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    static std::atomic<uint64_t> keep{0};
    keep += sink.load();  // the sum is used, so the reads cannot be optimised away
    return double(bytes_) / s / 1e9;
}

double MemoryBandwidth::copy_gbps() {
    const int64_t parts = pool_.size();
    const size_t h = bytes_ / 2;
    const auto t0 = std::chrono::steady_clock::now();
    pool_.parallel_for(int64_t(h), int64_t(h / size_t(parts * 4)) + 1, [&](int64_t b, int64_t e) {
        std::memcpy(dst_ + b, src_ + b, size_t(e - b));
    });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return double(h) / s / 1e9;
}

}  // namespace folio::bench
