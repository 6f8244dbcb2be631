#pragma once
// One step as the scheduler prepared it: what runs, what is preempted, what is admitted, and the KV
// plan that makes room. Nothing has changed yet; Scheduler::apply makes it so.
#include <cstdint>
#include <vector>

#include "engine/kv/kv_cache_manager.h"

namespace folio {

struct ScheduledChunk {
    SeqId id = 0;
    int context_before = 0;  // tokens of the sequence already in the KV cache
    int num_tokens = 0;      // query tokens this step: 1 for a decode, a prefill chunk otherwise
    bool samples = false;    // the chunk reaches the sequence's last token: sample its next one
    bool prefill = false;    // the tokens are prompt work (incl. recompute after preemption)
};

struct SchedulePlan {
    std::vector<ScheduledChunk> chunks;  // batch order: decodes first, then prefill chunks
    std::vector<SeqId> preempted;        // running -> waiting, blocks freed, recomputed later
    std::vector<SeqId> admitted;         // waiting -> running (their first chunk is in `chunks`)
    // Sequences the whole pool can no longer hold (prompt + generated tokens exceed it): the engine
    // finishes them; apply() has dropped them.
    std::vector<SeqId> out_of_memory;
    std::vector<SeqId> static_batch;     // static mode: the batch this step starts
    KvPlan kv;
    int num_tokens = 0;
    uint64_t version = 0;  // the scheduler state it was prepared against

    bool empty() const { return chunks.empty() && preempted.empty() && out_of_memory.empty(); }
    int num_sampling() const {
        int n = 0;
        for (const auto& c : chunks) n += c.samples ? 1 : 0;
        return n;
    }
};

}  // namespace folio
