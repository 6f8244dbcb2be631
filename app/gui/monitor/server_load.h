#pragma once
// What a server's /metrics says about its load, read from vLLM's metric names ("vllm:...") or
// folio-server's (the same names with "folio:", app/server/metrics.cpp). Plain C++, no Qt.
//   running / waiting requests     vllm:num_requests_running, vllm:num_requests_waiting
//   KV-cache usage (0..1)          vllm:kv_cache_usage_perc (V1), vllm:gpu_cache_usage_perc (V0)
//   prefix-cache hits / queries    vllm:prefix_cache_hits_total, vllm:prefix_cache_queries_total (tokens),
//                                  or V0's gauge vllm:gpu_prefix_cache_hit_rate
//   tokens (cumulative)            vllm:generation_tokens_total, vllm:prompt_tokens_total
// A server with several engines or models reports one series per label set: counts and tokens are
// summed, the KV usage averaged.
#include <optional>
#include <string>

#include "app/gui/monitor/prometheus_text.h"

namespace folio::app {

struct ServerLoad {
    std::string flavour;  // "vllm", "folio"; empty when neither's metrics are there
    std::optional<double> running, waiting;
    std::optional<double> kv_usage;  // fraction of the KV cache in use, 0..1
    std::optional<double> prefix_hits, prefix_queries;  // tokens since the server started
    std::optional<double> prefix_hit_rate_gauge;        // vLLM V0's own hit rate (0..1)
    std::optional<double> generation_tokens, prompt_tokens;  // since the server started

    // Prefix-cache hits over queries since the server started (or V0's gauge); unknown with no query.
    std::optional<double> prefix_hit_rate() const;
};

ServerLoad read_server_load(const MetricsText& metrics);

// Token throughput between two readings `seconds` apart; unknown when a counter is missing or went
// back (the server restarted).
struct ServerThroughput {
    std::optional<double> generation_tok_s, prompt_tok_s;
};
ServerThroughput server_throughput(const ServerLoad& before, const ServerLoad& after, double seconds);

}  // namespace folio::app
