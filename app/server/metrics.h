#pragma once
// /metrics in the Prometheus text format, with names after vLLM's (prefix "folio:" instead of
// "vllm:") so dashboards written for one read the other: scheduler and KV gauges from the engine's
// stats, token and request counters, and latency histograms observed as events leave the engine.
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/runtime/engine_stats.h"
#include "engine/sampling/finish_reason.h"

namespace folio::server {

class Histogram {
public:
    explicit Histogram(std::vector<double> bounds);
    void observe(double x);
    // Appends the _bucket/_sum/_count lines of `name` (with `labels`, e.g. model_name="x").
    void render(std::string& out, const std::string& name, const std::string& help, const std::string& labels) const;

private:
    std::vector<double> bounds_;
    std::vector<uint64_t> counts_;  // per bound, not cumulative; one more for +Inf
    double sum_ = 0;
    uint64_t count_ = 0;
};

class ServerMetrics {
public:
    ServerMetrics();
    // Called on the engine's output thread as events come. Each token is counted as it comes (as vLLM
    // counts generation tokens per step), so a monitor's tokens/s follows a long reply while it
    // streams instead of jumping when it ends.
    void observe_first_token(double ttft_s);
    void observe_inter_token(double gap_s);
    void observe_finished(FinishReason reason, double e2e_s, int prompt_tokens);
    // Called on HTTP threads.
    void count_http_error(int status);

    // The whole exposition; `stats` is a fresh engine snapshot.
    std::string render(const EngineStats& stats, const std::string& model_name) const;

private:
    mutable std::mutex mutex_;
    Histogram ttft_, itl_, e2e_;
    std::map<std::string, uint64_t> finished_;   // by OpenAI-ish finish reason
    std::map<int, uint64_t> http_errors_;         // by status
    uint64_t prompt_tokens_ = 0, generated_tokens_ = 0;
};

}  // namespace folio::server
