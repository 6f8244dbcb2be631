#include "app/bench/bench_report.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "app/bench/report_text.h"
#include "engine/core/error.h"

namespace folio::bench {

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = p / 100.0 * double(v.size() - 1);
    const size_t lo = size_t(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

nlohmann::json summarize(const RunResult& run, const RunInfo& info) {
    std::vector<double> ttft, itl, e2e;
    int64_t out_tokens = 0, in_tokens = 0, completed = 0, errors = 0;
    for (const RequestRecord& r : run.records) {
        out_tokens += int64_t(r.error.empty() ? r.output_tokens : int(r.token_s.size()));
        if (!r.error.empty()) {
            ++errors;
            continue;
        }
        in_tokens += int64_t(r.prompt_tokens);
        ++completed;
        if (r.first_token_s >= 0) ttft.push_back((r.first_token_s - r.submit_s) * 1000.0);
        for (size_t i = 1; i < r.token_s.size(); ++i) itl.push_back((r.token_s[i] - r.token_s[i - 1]) * 1000.0);
        e2e.push_back((r.end_s - r.submit_s) * 1000.0);
    }
    auto mean = [](const std::vector<double>& v) {
        double s = 0;
        for (double x : v) s += x;
        return v.empty() ? 0.0 : s / double(v.size());
    };
    const double d = run.duration_s > 0 ? run.duration_s : 1e-9;
    const EngineStats& s = run.final_stats;
    nlohmann::json j;
    j["model"] = info.model;
    j["backend"] = info.backend;
    j["device"] = info.device;
    j["workload"] = info.workload;
    j["batching"] = info.batching;
    j["remote"] = info.remote;
    j["prefix_caching"] = info.prefix_caching;
    j["concurrency"] = info.concurrency;
    j["rate"] = info.rate;
    j["requests"] = int64_t(run.records.size());
    j["completed"] = completed;
    j["errors"] = errors;
    j["input_tokens"] = in_tokens;
    j["output_tokens"] = out_tokens;
    j["duration_s"] = run.duration_s;
    j["requests_per_s"] = double(completed) / d;
    j["output_tokens_per_s"] = double(out_tokens) / d;
    j["total_tokens_per_s"] = double(out_tokens + in_tokens) / d;
    j["ttft_ms_mean"] = mean(ttft);
    j["ttft_ms_p50"] = percentile(ttft, 50);
    j["ttft_ms_p99"] = percentile(ttft, 99);
    j["itl_ms_mean"] = mean(itl);
    j["itl_ms_p50"] = percentile(itl, 50);
    j["itl_ms_p99"] = percentile(itl, 99);
    j["e2e_ms_p50"] = percentile(e2e, 50);
    j["e2e_ms_p99"] = percentile(e2e, 99);
    j["steps"] = run.steps;
    j["mean_batch_seqs"] = run.mean_batch_seqs;
    j["kv_blocks_total"] = info.kv_blocks;
    j["block_size"] = info.block_size;
    j["kv_cache_dtype"] = info.kv_cache_dtype;
    j["kv_bytes_per_block"] = info.kv_bytes_per_block;
    j["kv_pool_bytes"] = uint64_t(info.kv_blocks) * info.kv_bytes_per_block;
    j["peak_blocks_used"] = run.peak_blocks_used;
    j["kv_fragmentation"] = run.kv_fragmentation;
    j["preemptions"] = s.preemptions;
    j["prefix_hit_rate"] = s.kv.prefix_hit_rate();
    j["prefix_hit_tokens"] = s.kv.prefix_hit_tokens;
    return j;
}

namespace {
std::string rate_text(double rate) {
    return rate > 0 ? printf_string("%.2f/s (Poisson)", rate) : "all at once";
}
}  // namespace

std::string format_table(const nlohmann::json& j) {
    const auto text = [&](const char* key) { return j[key].get_ref<const std::string&>().c_str(); };
    const auto real = [&](const char* key) { return j[key].get<double>(); };
    const auto count = [&](const char* key) { return (long long)j[key].get<int64_t>(); };
    const int concurrency = j["concurrency"].get<int>();
    const std::string concurrency_text = concurrency > 0 ? std::to_string(concurrency) : "unlimited";
    ReportText out(20);
    out.line("folio-bench: %s on %s (%s)\n", text("model"), text("backend"), text("device"));
    out.row("workload", "%s", text("workload"));
    if (j.value("remote", false))
        out.row("load", "concurrency %s, rate %s", concurrency_text.c_str(), rate_text(real("rate")).c_str());
    else
        out.row("batching", "%s, prefix caching %s, concurrency %s, rate %s", text("batching"), j["prefix_caching"].get<bool>() ? "on" : "off",
                concurrency_text.c_str(), rate_text(real("rate")).c_str());
    out.row("requests", "%lld (%lld completed, %lld errors)", count("requests"), count("completed"), count("errors"));
    out.row("tokens", "%lld in, %lld out", count("input_tokens"), count("output_tokens"));
    out.row("duration", "%.3f s", real("duration_s"));
    out.row("throughput", "%.2f requests/s, %.1f output tok/s, %.1f total tok/s", real("requests_per_s"), real("output_tokens_per_s"),
            real("total_tokens_per_s"));
    out.row("TTFT", "p50 %.1f ms, p99 %.1f ms (mean %.1f)", real("ttft_ms_p50"), real("ttft_ms_p99"), real("ttft_ms_mean"));
    out.row("inter-token latency", "p50 %.1f ms, p99 %.1f ms (mean %.1f)", real("itl_ms_p50"), real("itl_ms_p99"), real("itl_ms_mean"));
    if (j.value("remote", false)) {
        out.row("measured", "from the client: TTFT from submit to the first streamed chunk, ITL between chunks");
        return out.text;  // the server's steps and KV pool are not seen from here (its /metrics has them)
    }
    out.row("steps", "%lld, %.1f sequences per step on average", count("steps"), real("mean_batch_seqs"));
    out.row("KV pool", "%lld blocks of %d (%s, %.1f MiB), peak %lld used, fragmentation %.2f%%", count("kv_blocks_total"),
            j["block_size"].get<int>(), text("kv_cache_dtype"), double(j["kv_pool_bytes"].get<uint64_t>()) / 1048576.0, count("peak_blocks_used"),
            100.0 * real("kv_fragmentation"));
    if (j.contains("load_seconds"))
        out.row("load", "%.1f s (of which %.1f s converting weights), peak memory %.0f MiB", real("load_seconds"), real("quantize_seconds"),
                double(j["load_peak_rss_bytes"].get<uint64_t>()) / 1048576.0);
    out.row("preemptions", "%lld", count("preemptions"));
    out.row("prefix hit rate", "%.1f%%", 100.0 * real("prefix_hit_rate"));
    return out.text;
}

void add_load_report(nlohmann::json& result, const LoadReport& load) {
    result["load_seconds"] = load.seconds;
    result["quantize_seconds"] = load.quantize_seconds;
    result["load_peak_rss_bytes"] = load.peak_rss_bytes;
}

void write_outputs(const RunResult& run, const std::string& path) {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw Error("cannot write --dump-outputs file " + path);
    for (const RequestRecord& r : run.records) {
        nlohmann::json j;
        j["index"] = r.index;
        j["prompt_ids"] = r.prompt_ids;
        j["ids"] = r.ids;
        j["finish_reason"] = finish_reason_name(r.reason);
        if (!r.error.empty()) j["error"] = r.error;
        out << j.dump() << '\n';
    }
    if (!out) throw Error("writing --dump-outputs file " + path + " failed");
}

}  // namespace folio::bench
