#pragma once
// `folio-bench --suite compare`: one workload under several engine settings, alternated round by
// round on fresh engines, so their ratios hold on a noisy machine: continuous batching with prefix
// caching on and off, static batching, and a single stream (concurrency 1) as the baseline.
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "app/bench/bench_report.h"
#include "app/bench/workload.h"
#include "engine/frontdoor/engine.h"

namespace folio::bench {

using EnginePtr = std::unique_ptr<Engine>;

struct CompareConfig {
    std::string name;
    BatchingMode batching = BatchingMode::Continuous;
    bool prefix_caching = true;
    int concurrency = 0;
};

// `make_engine(config)` builds a fresh engine for one configuration.
nlohmann::json run_compare_suite(const Workload& workload, int rounds, const RunInfo& base_info,
                                 const std::function<EnginePtr(const CompareConfig&)>& make_engine,
                                 const std::vector<CompareConfig>& configs);
std::string format_compare_suite(const nlohmann::json& result);

}  // namespace folio::bench
