#pragma once
// The figures of one folio-bench run, as a human table or one JSON object.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/bench/workload_runner.h"

namespace folio::bench {

// Linear interpolation between closest ranks (numpy's default); 0 for no values.
double percentile(std::vector<double> values, double p);

struct RunInfo {
    std::string model, backend, device, batching, workload;
    bool prefix_caching = true;
    bool remote = false;  // a server measured from the client (--backend remote): no steps or KV figures
    int concurrency = 0;  // 0: unlimited
    double rate = 0;      // 0: all at once
    int64_t kv_blocks = 0;
    int block_size = 16;
};

// Every key the issue asks for (requests, output_tokens, duration_s, output_tokens_per_s,
// ttft_ms_p50/p99, itl_ms_p50/p99, peak_blocks_used, kv_fragmentation, preemptions,
// prefix_hit_rate) and more.
nlohmann::json summarize(const RunResult& run, const RunInfo& info);
std::string format_table(const nlohmann::json& summary);

// One {"index": i, "prompt_ids": [...], "ids": [...]} per line, in workload order.
void write_outputs(const RunResult& run, const std::string& path);

}  // namespace folio::bench
