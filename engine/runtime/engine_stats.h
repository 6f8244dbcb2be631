#pragma once
// A snapshot of the engine for monitors and benchmarks. Plain data, copied out under a lock.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/kv/kv_counters.h"
#include "engine/runtime/core_request.h"

namespace folio {

struct SequenceStats {
    RequestId id = 0;
    std::string tag;
    enum class State { Waiting, Prefilling, Decoding, Preempted } state = State::Waiting;
    int prompt_tokens = 0;
    int generated_tokens = 0;
    int blocks = 0;         // physical blocks in its block table
    int shared_blocks = 0;  // of those, blocks also held by another sequence (e.g. a common prompt prefix)
    double prefill_tok_s = 0;
    double decode_tok_s = 0;
};

struct EngineStats {
    // KV pool: the counters as the pool keeps them, its storage, and the most blocks held at once since start
    KvCounters kv;
    std::string kv_cache_dtype;       // "fp32", "fp16", "fp8_e4m3" or "fp8_e5m2"
    uint64_t kv_bytes_per_block = 0;  // all layers, K and V
    int64_t peak_blocks_used = 0;
    // Scheduler
    int running = 0;
    int waiting = 0;            // queue depth
    int64_t preemptions = 0;    // total since start
    int last_batch_seqs = 0;
    int last_batch_tokens = 0;
    double last_step_ms = 0;
    int64_t steps = 0;
    // Summed over every step since start, so a client can take a run's averages from two snapshots:
    // sequences per step (batched_seqs_total / steps) and the KV pool's fragmentation (unused slots
    // inside allocated blocks over allocated slots).
    int64_t batched_seqs_total = 0;
    int64_t kv_slots_allocated_total = 0;
    int64_t kv_slots_filled_total = 0;
    // Throughput over a recent window (about the last second)
    double prefill_tok_s = 0;
    double decode_tok_s = 0;
    int64_t total_prompt_tokens = 0;     // prompt tokens computed (prefix-cache hits excluded, recompute after preemption included)
    int64_t total_generated_tokens = 0;  // tokens sampled
    // Device
    std::string backend;
    std::string device_name;
    MemoryInfo memory;
    std::vector<SequenceStats> sequences;
};

}  // namespace folio
