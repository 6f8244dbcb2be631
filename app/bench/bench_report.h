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
    std::string kv_cache_dtype;       // "fp32", "fp16", "fp8_e4m3", "fp8_e5m2"
    uint64_t kv_bytes_per_block = 0;  // all layers, K and V
};

// How the model was loaded (LoadStats): seconds, of which converting weights (--quantization), and
// the process's peak resident memory at the end of loading.
struct LoadReport {
    double seconds = 0, quantize_seconds = 0;
    uint64_t peak_rss_bytes = 0;
};
// Adds "load_seconds", "quantize_seconds" and "load_peak_rss_bytes" to a result.
void add_load_report(nlohmann::json& result, const LoadReport& load);

// Every key the issue asks for (requests, output_tokens, duration_s, output_tokens_per_s,
// ttft_ms_p50/p99, itl_ms_p50/p99, peak_blocks_used, kv_fragmentation, preemptions,
// prefix_hit_rate) and more.
nlohmann::json summarize(const RunResult& run, const RunInfo& info);
std::string format_table(const nlohmann::json& summary);

// One {"index": i, "prompt_ids": [...], "ids": [...]} per line, in workload order.
void write_outputs(const RunResult& run, const std::string& path);

}  // namespace folio::bench
