#include "app/gui/monitor/server_load.h"

#include <cmath>

namespace folio::app {

namespace {

struct Sum {
    double total = 0;
    int n = 0;
    void add(double v) {
        if (std::isnan(v)) return;  // a series with no value yet
        total += v;
        ++n;
    }
    std::optional<double> sum() const { return n ? std::optional<double>(total) : std::nullopt; }
    std::optional<double> mean() const { return n ? std::optional<double>(total / n) : std::nullopt; }
};

ServerLoad read_with_prefix(const MetricsText& m, const std::string& p) {
    Sum running, waiting, kv, kv_v0, hits, queries, hit_rate, gen, prompt;
    const std::pair<std::string, Sum*> names[] = {
        {p + "num_requests_running", &running},         {p + "num_requests_waiting", &waiting},
        {p + "kv_cache_usage_perc", &kv},               {p + "gpu_cache_usage_perc", &kv_v0},
        {p + "prefix_cache_hits_total", &hits},         {p + "prefix_cache_queries_total", &queries},
        {p + "gpu_prefix_cache_hit_rate", &hit_rate},   {p + "generation_tokens_total", &gen},
        {p + "prompt_tokens_total", &prompt},
    };
    bool any = false;
    for (const MetricSample& s : m.samples) {
        if (s.name.compare(0, p.size(), p) != 0) continue;
        any = true;
        for (const auto& [name, sum] : names)
            if (s.name == name) sum->add(s.value);
    }
    ServerLoad l;
    if (!any) return l;
    l.flavour = p.substr(0, p.size() - 1);
    l.running = running.sum();
    l.waiting = waiting.sum();
    l.kv_usage = kv.n ? kv.mean() : kv_v0.mean();
    l.prefix_hits = hits.sum();
    l.prefix_queries = queries.sum();
    l.prefix_hit_rate_gauge = hit_rate.mean();
    l.generation_tokens = gen.sum();
    l.prompt_tokens = prompt.sum();
    return l;
}

std::optional<double> rate(const std::optional<double>& a, const std::optional<double>& b, double seconds) {
    if (!a || !b || seconds <= 0 || *b < *a) return std::nullopt;
    return (*b - *a) / seconds;
}

}  // namespace

std::optional<double> ServerLoad::prefix_hit_rate() const {
    if (prefix_hits && prefix_queries && *prefix_queries > 0) return *prefix_hits / *prefix_queries;
    return prefix_hit_rate_gauge;
}

ServerLoad read_server_load(const MetricsText& metrics) {
    ServerLoad l = read_with_prefix(metrics, "vllm:");
    if (l.flavour.empty()) l = read_with_prefix(metrics, "folio:");
    return l;
}

ServerThroughput server_throughput(const ServerLoad& before, const ServerLoad& after, double seconds) {
    return {rate(before.generation_tokens, after.generation_tokens, seconds), rate(before.prompt_tokens, after.prompt_tokens, seconds)};
}

}  // namespace folio::app
