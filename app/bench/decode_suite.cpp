#include "app/bench/decode_suite.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <unordered_set>

#include "app/bench/bench_report.h"
#include "app/bench/memory_bandwidth.h"
#include "app/bench/report_text.h"
#include "engine/core/error.h"
#include "engine/core/thread_pool.h"
#include "engine/model/model.h"

namespace folio::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::vector<int32_t> random_prompt(const Model& m, int len, std::mt19937_64& rng) {
    std::uniform_int_distribution<int32_t> tok(3, m.config.vocab_size - 1);
    std::vector<int32_t> p{m.config.bos_token_id >= 0 && m.config.bos_token_id < m.config.vocab_size ? m.config.bos_token_id : 1};
    while (int(p.size()) < len) p.push_back(tok(rng));
    return p;
}

void fail_on_error(const std::vector<Event>& events) {
    for (const Event& e : events)
        if (e.kind == Event::Kind::Error) throw Error("benchmark request failed: " + e.message);
}

// Decode tokens per second with `n` streams decoding in lock-step, after their prefill.
double measure_decode(SyncEngine& core, const Model& m, int n, int prompt_len, int tokens_each, std::mt19937_64& rng) {
    for (int i = 0; i < n; ++i) core.add(fixed_length_greedy_request(random_prompt(m, prompt_len, rng), tokens_each));
    std::unordered_set<RequestId> started;  // streams past their prefill
    while (int(started.size()) < n && core.has_unfinished()) {
        const auto ev = core.step();
        fail_on_error(ev);
        for (const Event& e : ev)
            if (e.kind == Event::Kind::Token) started.insert(e.id);
    }
    int64_t tokens = 0;
    const Clock::time_point t0 = Clock::now();
    while (core.has_unfinished()) {
        const auto ev = core.step();
        fail_on_error(ev);
        for (const Event& e : ev) tokens += e.kind == Event::Kind::Token;
    }
    const double s = seconds_since(t0);
    return s > 0 ? double(tokens) / s : 0;
}

// Prompt tokens per second of one `len`-token prompt computed in a single step.
double measure_prefill(SyncEngine& core, const Model& m, const DecodeSuiteOptions& o, std::mt19937_64& rng) {
    core.add(fixed_length_greedy_request(random_prompt(m, o.prefill_len, rng), 1));
    const Clock::time_point t0 = Clock::now();
    while (core.has_unfinished()) fail_on_error(core.step());
    return double(o.prefill_len) / seconds_since(t0);
}

double median(std::vector<double> v) { return percentile(std::move(v), 50); }

}  // namespace

nlohmann::json run_decode_suite(const Model& model,
                                const std::function<SyncEnginePtr(int64_t, int, int)>& make_core,
                                const DecodeSuiteOptions& o) {
    if (o.rounds < 1) throw Error("--rounds must be at least 1");
    if (o.prefill_len > model.context_length() || o.prompt_len + o.decode_tokens > model.context_length())
        throw Error("the suite's prompts do not fit the model's context of " + std::to_string(model.context_length()) + " tokens");
    const int max_streams = *std::max_element(o.streams.begin(), o.streams.end());
    const int bs = 16;
    const int64_t blocks = std::max<int64_t>(int64_t(max_streams) * ((o.prompt_len + o.decode_tokens + bs - 1) / bs + 1),
                                             (o.prefill_len + 1 + bs - 1) / bs + 1);
    auto core = make_core(blocks, std::max(max_streams, 1), std::max({o.prefill_len, max_streams * o.prompt_len, 2048}));

    ThreadPool pool(o.threads);
    MemoryBandwidth bw(o.bandwidth_bytes, pool);
    std::mt19937_64 rng(o.seed);
    // Warm-up: first touches of weights and scratch buffers are not measured.
    measure_decode(*core, model, 1, 8, 4, rng);

    // Every decode measurement is paired with a bandwidth probe taken right before it, and the
    // fraction reported is the median of those paired ratios: the machine's bandwidth drifts by
    // +-15% within a run here, and a ratio of two medians taken at different moments can then
    // exceed 100%.
    // What a step reads as the backend holds the weights (the CPU backend's packed layouts, its int8
    // mode's 8-bit lm_head), else the checkpoint's count.
    const uint64_t held = core->backend().memory().weights;
    const double bytes = double(held > 0 ? held : model.weights.bytes_per_token);
    std::vector<double> read, copy, prefill;
    std::vector<std::vector<double>> decode(o.streams.size()), fraction(o.streams.size());
    for (int r = 0; r < o.rounds; ++r) {
        copy.push_back(bw.copy_gbps());
        for (size_t i = 0; i < o.streams.size(); ++i) {
            const double rb = bw.read_gbps();
            read.push_back(rb);
            const double tok_s = measure_decode(*core, model, o.streams[i], o.prompt_len, o.decode_tokens, rng);
            decode[i].push_back(tok_s);
            // Weights are read once per step, and a step yields one token per stream.
            fraction[i].push_back(rb > 0 ? bytes * tok_s / double(o.streams[i]) / 1e9 / rb : 0);
        }
        prefill.push_back(measure_prefill(*core, model, o, rng));
    }

    nlohmann::json j;
    j["model"] = model.name;
    j["quantization"] = model.quantization_name();
    j["parameters_hidden"] = model.config.hidden_size;
    j["layers"] = model.config.num_layers;
    j["backend"] = core->backend().name();
    j["device"] = core->backend().device_name();
    j["kv_cache_dtype"] = core->stats().kv_cache_dtype;
    j["kv_bytes_per_block"] = core->stats().kv_bytes_per_block;
    j["memory_rss_bytes"] = core->stats().memory.device_used;
    j["rounds"] = o.rounds;
    j["weight_bytes_per_token"] = uint64_t(bytes);
    j["read_gbps"] = median(read);
    j["read_gbps_min"] = *std::min_element(read.begin(), read.end());
    j["read_gbps_max"] = *std::max_element(read.begin(), read.end());
    j["copy_gbps"] = median(copy);
    j["prefill_len"] = o.prefill_len;
    j["prefill_tok_s"] = median(prefill);
    j["decode_prompt_len"] = o.prompt_len;
    j["decode_tokens"] = o.decode_tokens;
    nlohmann::json rows = nlohmann::json::array();
    double single = 0;
    for (size_t i = 0; i < o.streams.size(); ++i) {
        const double tok_s = median(decode[i]);
        if (o.streams[i] == 1) single = tok_s;
        nlohmann::json row;
        row["streams"] = o.streams[i];
        row["tok_s"] = tok_s;
        row["tok_s_rounds"] = decode[i];
        row["weight_read_gbps"] = bytes * tok_s / double(o.streams[i]) / 1e9;
        row["fraction_of_read_bandwidth"] = median(fraction[i]);
        row["fraction_rounds"] = fraction[i];
        rows.push_back(row);
    }
    for (auto& row : rows) row["speedup_vs_1_stream"] = single > 0 ? row["tok_s"].get<double>() / single : 0;
    j["decode"] = rows;
    return j;
}

std::string format_decode_suite(const nlohmann::json& j) {
    ReportText out(25);
    out.line("folio-bench --suite decode: %s (%s) on %s\n", j["model"].get<std::string>().c_str(), j["quantization"].get<std::string>().c_str(),
             j["device"].get<std::string>().c_str());
    out.line("  medians of %d alternating rounds\n", j["rounds"].get<int>());
    out.row("weights read per token", "%.1f MB", j["weight_bytes_per_token"].get<double>() / 1e6);
    out.row("KV cache", "%s, %.1f KiB per block of 16 tokens", j["kv_cache_dtype"].get<std::string>().c_str(),
            double(j["kv_bytes_per_block"].get<uint64_t>()) / 1024.0);
    if (j.contains("load_seconds"))
        out.row("load", "%.1f s (of which %.1f s converting weights), peak memory %.0f MiB", j["load_seconds"].get<double>(),
                j["quantize_seconds"].get<double>(), double(j["load_peak_rss_bytes"].get<uint64_t>()) / 1048576.0);
    out.row("memory bandwidth", "read (sum, all cores, huge pages) %.2f GB/s (%.2f-%.2f over %zu probes), copy %.2f GB/s",
            j["read_gbps"].get<double>(), j["read_gbps_min"].get<double>(), j["read_gbps_max"].get<double>(),
            size_t(j["rounds"].get<int>()) * j["decode"].size(), j["copy_gbps"].get<double>());
    out.row("prefill", "%.1f tok/s (%d-token prompt)", j["prefill_tok_s"].get<double>(), j["prefill_len"].get<int>());
    out.line("  %-8s %12s %14s %16s %10s\n", "streams", "decode tok/s", "x 1 stream", "weights GB/s", "of read bw");
    for (const auto& r : j["decode"])
        out.line("  %-8d %12.2f %14.2f %16.2f %9.1f%%\n", r["streams"].get<int>(), r["tok_s"].get<double>(), r["speedup_vs_1_stream"].get<double>(),
                 r["weight_read_gbps"].get<double>(), 100.0 * r["fraction_of_read_bandwidth"].get<double>());
    out.line("  of read bw: median over the rounds of each measurement's ratio to a bandwidth probe taken just before it\n");
    return out.text;
}

}  // namespace folio::bench
