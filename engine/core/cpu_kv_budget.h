#pragma once
// How much memory the CPU backend's KV pool takes when the user sets no budget (--kv-cache-mb). In
// core because the backend (engine/cpu) and the fit estimate (engine/hub) both apply it.
#include <algorithm>
#include <cstdint>

namespace folio {

// A quarter of the free memory, at most 8 GiB: room for many conversations of a small model while
// the rest of the machine keeps working. A long-context model (Qwen2.5-7B: 32k tokens, 3.6 GiB of fp32
// KV for one full-length sequence) may need more than that quarter just to hold one sequence; then
// the pool takes exactly that much as long as it leaves half of the free memory alone, so such a
// model starts with one full-context conversation instead of being refused. Beyond half, the caller's
// error says to free memory or to set a budget.
inline uint64_t default_cpu_kv_budget(uint64_t available_bytes, uint64_t one_sequence_bytes) {
    const uint64_t quarter = std::min<uint64_t>(available_bytes / 4, 8ull << 30);
    if (quarter >= one_sequence_bytes || one_sequence_bytes > available_bytes / 2) return quarter;
    return one_sequence_bytes;
}

}  // namespace folio
