#pragma once
// What the KV pool reports: block counts by state, slots allocated and filled, and the prefix
// cache's work since start. Plain data: the engine's stats hold it as it is, and the app's monitor
// shows it as it is (app/gui/monitor/engine_stats_view.h).
#include <cstdint>

namespace folio {

struct KvCounters {
    int64_t blocks_total = 0;
    int64_t blocks_used = 0;    // held by at least one sequence
    int64_t blocks_cached = 0;  // held by none, still holding a reusable prefix-cache entry
    int64_t blocks_free = 0;    // held by none, empty
    int block_size = 0;
    int64_t slots_allocated = 0;  // used blocks x block size
    int64_t slots_filled = 0;     // of those, slots holding a token's KV
    int64_t prefix_lookup_tokens = 0;  // prompt tokens looked up in the prefix cache, since start
    int64_t prefix_hit_tokens = 0;     // of those, served from it
    int64_t evictions = 0;             // cached blocks reused for new tokens, since start
    int64_t cow_copies = 0;            // blocks copied on write (a shared block about to diverge), since start

    // Slots allocated to sequences but unused, 0..1.
    double fragmentation() const { return slots_allocated ? double(slots_allocated - slots_filled) / double(slots_allocated) : 0.0; }
    // Prompt tokens served from the cache / prompt tokens looked up, 0..1.
    double prefix_hit_rate() const { return prefix_lookup_tokens ? double(prefix_hit_tokens) / double(prefix_lookup_tokens) : 0.0; }
};

}  // namespace folio
