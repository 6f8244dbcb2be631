#include "app/server/metrics.h"

#include <cstdio>

namespace folio::server {

namespace {

std::string num(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

void line(std::string& out, const std::string& name, const std::string& labels, double value) {
    // Appended piece by piece (no temporaries from operator+: GCC 12 warns falsely, -Wrestrict, on them).
    out += name;
    if (!labels.empty()) out.append("{").append(labels).append("}");
    out.append(" ").append(num(value)).append("\n");
}

void header(std::string& out, const std::string& name, const char* type, const std::string& help) {
    out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

// Label values are escaped as the text format requires.
std::string escape(const std::string& s) {
    std::string r;
    for (char c : s) {
        if (c == '\\' || c == '"') r += '\\';
        if (c == '\n') {
            r += "\\n";
            continue;
        }
        r += c;
    }
    return r;
}

const char* reason_label(FinishReason r) {
    switch (r) {
        case FinishReason::Eos:
        case FinishReason::StopString: return "stop";
        case FinishReason::Length:
        case FinishReason::ContextFull: return "length";
        case FinishReason::Cancelled: return "abort";
        case FinishReason::Error: return "error";
    }
    return "stop";
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double x) {
    size_t i = 0;
    while (i < bounds_.size() && x > bounds_[i]) ++i;
    ++counts_[i];
    sum_ += x;
    ++count_;
}

void Histogram::render(std::string& out, const std::string& name, const std::string& help, const std::string& labels) const {
    header(out, name, "histogram", help);
    uint64_t cum = 0;
    for (size_t i = 0; i <= bounds_.size(); ++i) {
        cum += counts_[i];
        const std::string le = i < bounds_.size() ? num(bounds_[i]) : "+Inf";
        out += name + "_bucket{" + labels + ",le=\"" + le + "\"} " + std::to_string(cum) + "\n";
    }
    line(out, name + "_sum", labels, sum_);
    line(out, name + "_count", labels, double(count_));
}

ServerMetrics::ServerMetrics()
    : ttft_({0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640}),
      itl_({0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}),
      e2e_({0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}) {}

void ServerMetrics::observe_first_token(double ttft_s) {
    std::lock_guard lock(mutex_);
    ttft_.observe(ttft_s);
    ++generated_tokens_;
}

void ServerMetrics::observe_inter_token(double gap_s) {
    std::lock_guard lock(mutex_);
    itl_.observe(gap_s);
    ++generated_tokens_;
}

void ServerMetrics::observe_finished(FinishReason reason, double e2e_s, int prompt_tokens) {
    std::lock_guard lock(mutex_);
    ++finished_[reason_label(reason)];
    e2e_.observe(e2e_s);
    prompt_tokens_ += uint64_t(prompt_tokens);
}

void ServerMetrics::count_http_error(int status) {
    std::lock_guard lock(mutex_);
    ++http_errors_[status];
}

std::string ServerMetrics::render(const EngineStats& s, const std::string& model_name) const {
    const std::string m = "model_name=\"" + escape(model_name) + "\"";
    std::string out;
    auto gauge = [&](const char* name, const char* help, double v) {
        header(out, name, "gauge", help);
        line(out, name, m, v);
    };
    auto counter = [&](const char* name, const char* help, double v) {
        header(out, name, "counter", help);
        line(out, name, m, v);
    };
    gauge("folio:num_requests_running", "Requests in the running batch.", s.running);
    gauge("folio:num_requests_waiting", "Requests waiting to be scheduled.", s.waiting);
    gauge("folio:kv_cache_usage_perc", "Fraction of KV-cache blocks held by requests (0-1).",
          s.kv.blocks_total ? double(s.kv.blocks_used) / double(s.kv.blocks_total) : 0.0);
    gauge("folio:kv_cache_blocks_total", "KV-cache blocks in the pool.", double(s.kv.blocks_total));
    gauge("folio:kv_cache_blocks_used", "KV-cache blocks held by at least one request.", double(s.kv.blocks_used));
    gauge("folio:kv_cache_blocks_cached", "Free KV-cache blocks still holding a reusable prefix.", double(s.kv.blocks_cached));
    counter("folio:prefix_cache_queries_total", "Prompt tokens looked up in the prefix cache.", double(s.kv.prefix_lookup_tokens));
    counter("folio:prefix_cache_hits_total", "Prompt tokens served from the prefix cache.", double(s.kv.prefix_hit_tokens));
    counter("folio:num_preemptions_total", "Requests preempted (KV blocks taken back) since start.", double(s.preemptions));
    counter("folio:engine_prompt_tokens_computed_total", "Prompt tokens the engine computed (prefix hits excluded).",
            double(s.total_prompt_tokens));
    std::lock_guard lock(mutex_);
    counter("folio:prompt_tokens_total", "Prompt tokens of finished requests.", double(prompt_tokens_));
    counter("folio:generation_tokens_total", "Tokens generated, counted as they stream.", double(generated_tokens_));
    header(out, "folio:request_success_total", "counter", "Finished requests by finish reason.");
    for (const char* r : {"stop", "length", "abort", "error"}) {
        auto it = finished_.find(r);
        line(out, "folio:request_success_total", m + ",finished_reason=\"" + r + "\"", double(it == finished_.end() ? 0 : it->second));
    }
    header(out, "folio:http_errors_total", "counter", "Requests answered with an HTTP error, by status.");
    for (const auto& [status, n] : http_errors_) line(out, "folio:http_errors_total", m + ",status=\"" + std::to_string(status) + "\"", double(n));
    ttft_.render(out, "folio:time_to_first_token_seconds", "Time from submission to the first generated token.", m);
    itl_.render(out, "folio:inter_token_latency_seconds", "Time between consecutive tokens of a request.", m);
    e2e_.render(out, "folio:e2e_request_latency_seconds", "Time from submission to the request's end.", m);
    return out;
}

}  // namespace folio::server
