#include "app/bench/compare_suite.h"

#include <algorithm>

#include "app/bench/report_text.h"
#include "app/bench/workload_runner.h"

namespace folio::bench {

nlohmann::json run_compare_suite(const Workload& workload, int rounds, const RunInfo& base_info,
                                 const std::function<EnginePtr(const CompareConfig&)>& make_engine,
                                 const std::vector<CompareConfig>& configs) {
    std::vector<std::vector<nlohmann::json>> runs(configs.size());
    for (int r = 0; r < rounds; ++r) {
        for (size_t c = 0; c < configs.size(); ++c) {
            const std::unique_ptr<Engine> engine = make_engine(configs[c]);
            RunInfo info = base_info;
            info.batching = configs[c].batching == BatchingMode::Static ? "static" : "continuous";
            info.prefix_caching = configs[c].prefix_caching;
            info.concurrency = configs[c].concurrency;
            info.kv_blocks = engine->stats().kv.blocks_total;
            const RunResult run = run_workload(*engine, workload, configs[c].concurrency, [&] { engine->set_input_closed(true); });
            runs[c].push_back(summarize(run, info));
        }
    }
    nlohmann::json out;
    out["workload"] = workload.description;
    out["model"] = base_info.model;
    out["device"] = base_info.device;
    out["rounds"] = rounds;
    nlohmann::json rows = nlohmann::json::array();
    double baseline = 0;
    for (size_t c = 0; c < configs.size(); ++c) {
        // The round with the median throughput stands for the configuration.
        std::vector<nlohmann::json> v = runs[c];
        std::sort(v.begin(), v.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
            return a["output_tokens_per_s"].get<double>() < b["output_tokens_per_s"].get<double>();
        });
        nlohmann::json row = v[v.size() / 2];
        row["config"] = configs[c].name;
        if (configs[c].concurrency == 1) baseline = row["output_tokens_per_s"].get<double>();
        rows.push_back(row);
    }
    for (auto& row : rows) row["throughput_vs_single_stream"] = baseline > 0 ? row["output_tokens_per_s"].get<double>() / baseline : 0;
    out["configs"] = rows;
    return out;
}

std::string format_compare_suite(const nlohmann::json& j) {
    ReportText out;
    out.line("folio-bench --suite compare: %s on %s\n", j["model"].get<std::string>().c_str(), j["device"].get<std::string>().c_str());
    out.line("  workload: %s; median of %d alternating rounds\n", j["workload"].get<std::string>().c_str(), j["rounds"].get<int>());
    out.line("  %-26s %10s %8s %9s %9s %8s %8s %7s %6s %7s %7s %8s\n", "config", "out tok/s", "x single", "TTFT p50", "TTFT p99", "ITL p50",
             "ITL p99", "frag %", "peak", "preempt", "hit %", "batch");
    for (const auto& r : j["configs"])
        out.line("  %-26s %10.1f %8.2f %9.1f %9.1f %8.1f %8.1f %7.2f %6lld %7lld %7.1f %8.1f\n", r["config"].get<std::string>().c_str(),
                 r["output_tokens_per_s"].get<double>(), r["throughput_vs_single_stream"].get<double>(), r["ttft_ms_p50"].get<double>(),
                 r["ttft_ms_p99"].get<double>(), r["itl_ms_p50"].get<double>(), r["itl_ms_p99"].get<double>(),
                 100.0 * r["kv_fragmentation"].get<double>(), (long long)r["peak_blocks_used"].get<int64_t>(),
                 (long long)r["preemptions"].get<int64_t>(), 100.0 * r["prefix_hit_rate"].get<double>(), r["mean_batch_seqs"].get<double>());
    out.line("  (times in ms; peak = KV blocks; batch = sequences per step)\n");
    return out.text;
}

}  // namespace folio::bench
