#pragma once
// Drives an engine client (the in-process Engine or a server's RemoteEngine, engine_client.h) through
// a workload: submits each request at its arrival time (and while fewer than `concurrency` are in
// flight) and timestamps every event as it reaches the request's sink, on the engine's thread. The
// engine's own figures (steps, sequences per step, KV blocks) are its stats() before and after the
// run; a remote client has none (its server's /metrics does).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/bench/workload.h"
#include "engine/frontdoor/engine_client.h"

namespace folio::bench {

struct RequestRecord {
    size_t index = 0;
    double submit_s = -1;
    double first_token_s = -1;
    double end_s = -1;
    std::vector<double> token_s;  // when each token's event reached the sink (remote: each text chunk's)
    std::vector<int32_t> ids;     // remote: none (the API sends text)
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
    // The engine's, over the run (0 for a remote client):
    int64_t steps = 0;
    double mean_batch_seqs = 0;
    int64_t peak_blocks_used = 0;
    // Slots unused inside allocated blocks over allocated slots, summed over every step (0..1).
    double kv_fragmentation = 0;
    EngineStats final_stats;
};

// `close_input`, when given, is called once every request has been submitted (the local engine's
// set_input_closed: static batching may then start a smaller last batch).
RunResult run_workload(EngineClient& engine, const Workload& workload, int concurrency,
                       const std::function<void()>& close_input = {});

}  // namespace folio::bench
