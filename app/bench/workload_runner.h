#pragma once
// Drives a SyncEngine through a workload on this thread: submits each request at its arrival time
// (and while fewer than `concurrency` are in flight), steps the engine, and timestamps every event.
#include <cstdint>
#include <string>
#include <vector>

#include "app/bench/workload.h"
#include "engine/frontdoor/sync_engine.h"

namespace folio::bench {

struct RequestRecord {
    size_t index = 0;
    double submit_s = -1;
    double first_token_s = -1;
    double end_s = -1;
    std::vector<double> token_s;  // when each token's event came out of a step
    std::vector<int32_t> ids;
    std::vector<int32_t> prompt_ids;
    int output_tokens = 0;  // generated (local: ids.size(); remote: the server's usage)
    int prompt_tokens = 0;  // local: prompt_ids.size(); remote: the server's usage
    FinishReason reason = FinishReason::Error;
    std::string error;  // non-empty when the request failed
    RequestTimings timings;
};

struct RunResult {
    std::vector<RequestRecord> records;  // in workload order
    double duration_s = 0;               // first submission to last end
    int64_t steps = 0;
    double mean_batch_seqs = 0;
    int64_t peak_blocks_used = 0;
    // Slots unused inside allocated blocks over allocated slots, summed over every step (0..1).
    double kv_fragmentation = 0;
    EngineStats final_stats;
};

RunResult run_workload(SyncEngine& core, const Workload& workload, int concurrency);

}  // namespace folio::bench
