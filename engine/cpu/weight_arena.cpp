#include "engine/cpu/weight_arena.h"

#include <cstdlib>
#include <string>

#include "engine/core/error.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace folio::cpu {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
}

WeightArena::WeightArena(size_t bytes) : size_(slice_bytes(bytes)) {
    const size_t reserved = (size_ + kHugePage - 1) / kHugePage * kHugePage;
    auto* raw = static_cast<uint8_t*>(std::aligned_alloc(kHugePage, reserved == 0 ? kHugePage : reserved));
    if (!raw) throw Error("cannot allocate " + std::to_string(reserved >> 20) + " MiB for the repacked weights; free memory or use a smaller model");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Advice only: without transparent huge pages the arena still works, on 4 KiB pages.
    madvise(raw, reserved, MADV_HUGEPAGE);
#endif
    storage_.reset(raw, [](uint8_t* p) { std::free(p); });
}

uint8_t* WeightArena::take(size_t bytes) {
    const size_t n = slice_bytes(bytes);
    if (n > size_ - used_)
        throw Error("CPU backend: the weight arena of " + std::to_string(size_) + " bytes is too small for another " + std::to_string(n) +
                    " (a bug in the size computation)");
    uint8_t* p = storage_.get() + used_;
    used_ += n;
    return p;
}

}  // namespace folio::cpu
