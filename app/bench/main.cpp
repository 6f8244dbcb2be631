// folio-bench: throughput and latency of the engine (continuous vs static batching, prefix caching,
// KV pool use), the engine-core speed suite (decode at 1/4/16 streams, prefill, bandwidth), and the
// front-door suite (step times while a long chat history is submitted).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sstream>
#include <string>

#include "app/bench/bench_report.h"
#include "app/bench/compare_suite.h"
#include "app/bench/decode_suite.h"
#include "app/bench/front_door_suite.h"
#include "app/bench/workload.h"
#include "app/bench/workload_runner.h"
#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "engine/backends/backend_factory.h"
#include "engine/client/make_engine.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/frontdoor/sync_engine.h"

namespace folio::bench {
using cli::UsageError;
namespace {

const char* kUsage =
    "usage: folio-bench --model DIR|dummy:NAME [workload] [engine] [--dump-outputs OUT.jsonl] [--json]\n"
    "       folio-bench --model DIR|dummy:NAME --suite decode [--rounds N] [--streams 1,4,16] [--prefill-len 512]\n"
    "                   [--decode-tokens 32] [--bandwidth-mib 1024] [--json]\n"
    "       folio-bench --model DIR|dummy:NAME --suite compare [workload] [engine] [--rounds N] [--json]\n"
    "       folio-bench --model DIR|dummy:NAME --suite frontdoor [--streams 4] [--history-tokens 32000] [--rounds N]\n"
    "                   [--window-s 1] [engine] [--json]   step times while a long chat history is submitted\n"
    "       folio-bench --backend remote --endpoint URL [--api-key KEY] [--remote-model NAME] [workload] [--json]\n"
    "                   a serving benchmark of an OpenAI-compatible server (folio-server, vLLM, ...), measured from\n"
    "                   the client; synthetic workloads need --model (for its vocabulary) or --vocab-size N\n"
    "\n"
    "model:    --model DIR|dummy:NAME  [--tokenizer PATH (dummy models)] [--backend auto|cpu|cuda] [--threads N]\n"
    "          [--context N]            dummy models: their context length (max_position_embeddings)\n"
    "          [--cpu-activations int8|exact]  CPU matmuls: int8 activations (default; ~1e-2 of the logit range) or exact (3 int8 parts)\n"
    "          [--quantization fp8]     fp16/bf16/fp32 decoder linears to FP8 E4M3 at load (load time and peak memory reported)\n"
    "          [--kv-cache-dtype auto|fp8|fp8_e4m3|fp8_e5m2] [--calculate-kv-scales]  FP8 KV cache (scales from the first batch)\n"
    "workload: --prompts FILE.jsonl     one {\"prompt\": \"...\", \"max_tokens\": N} per line (raw text, no chat template)\n"
    "            [--max-tokens N]       when a line has no max_tokens (default 128)\n"
    "          or synthetic: --num-requests N (default 32) --input-len N|MIN:MAX (128) --output-len N|MIN:MAX (128)\n"
    "            [--shared-prefix N]    every prompt starts with the same N tokens\n"
    "          [--temperature T] (default 0: greedy; request i is seeded with --seed + i) [--ignore-eos] [--seed S]\n"
    "          [--rate R]               Poisson arrivals, R requests/s (default: all at once)\n"
    "          [--concurrency C]        at most C requests in flight (default: unlimited)\n"
    "engine:   [--batching continuous|static] [--static-batch-size N (default 16)] [--prefix-caching on|off]\n"
    "          [--kv-blocks B | --kv-cache-mib M] [--block-size 16] [--max-num-seqs 256] [--max-batched-tokens 2048]\n"
    "\n"
    "exit status: 0 done, 1 failed (a model or file; the message says why), 2 bad usage, 3 some requests failed (reported)\n";

std::vector<int> parse_int_list(const std::string& s, const std::string& flag) {
    std::vector<int> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        size_t used = 0;
        int v = 0;
        try {
            v = std::stoi(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != item.size() || v < 1) throw UsageError("--" + flag + " needs positive integers separated by commas, got '" + s + "'");
        out.push_back(v);
    }
    if (out.empty()) throw UsageError("--" + flag + " is empty");
    return out;
}

bool parse_on_off(const std::string& s, const std::string& flag) {
    if (s == "on") return true;
    if (s == "off") return false;
    throw UsageError("--" + flag + " takes on or off, got '" + s + "'");
}

// The workload of the flags: a prompt file or synthetic ids, arrivals, seeds. The same for the
// in-process engine and a remote one, so their figures compare.
Workload workload_from_args(const cli::Args& args, uint64_t seed, int vocab_size, int bos_id) {
    const int concurrency = args.get_int("concurrency", 0);
    const double rate = args.get_double("rate", 0);
    SamplingParams sampling;
    sampling.temperature = float(args.get_double("temperature", 0.0));
    Workload workload;
    if (auto prompts = args.get("prompts")) {
        for (const char* f : {"num-requests", "input-len", "output-len", "shared-prefix"})
            if (args.has(f)) throw UsageError(std::string("--") + f + " is for synthetic workloads; it cannot be combined with --prompts");
        workload = load_prompt_file(*prompts, args.get_int("max-tokens", 128), sampling, args.has("ignore-eos"));
    } else {
        if (args.has("max-tokens")) throw UsageError("--max-tokens is for --prompts files; synthetic workloads take --output-len");
        SyntheticSpec s;
        s.num_requests = args.get_int("num-requests", 32);
        s.input = LengthRange::parse(args.get_or("input-len", "128"), "input-len");
        s.output = LengthRange::parse(args.get_or("output-len", "128"), "output-len");
        s.shared_prefix = args.get_int("shared-prefix", 0);
        s.vocab_size = vocab_size;
        s.bos_id = bos_id;
        s.seed = seed;
        workload = synthetic_workload(s, sampling);
    }
    for (size_t i = 0; i < workload.requests.size(); ++i) workload.requests[i].request.sampling.seed = seed + i;
    assign_poisson_arrivals(workload, rate, seed);
    if (rate > 0 && !std::isinf(rate)) workload.description += ", Poisson arrivals at " + std::to_string(rate).substr(0, std::to_string(rate).find('.') + 3) + "/s";
    if (concurrency > 0) workload.description += ", at most " + std::to_string(concurrency) + " in flight";
    return workload;
}

// --backend remote: the workload sent to a server, measured from this client.
int run_remote(const cli::Args& args, bool json, uint64_t seed) {
    for (const char* f : {"tokenizer", "threads", "cpu-activations", "batching", "static-batch-size", "prefix-caching", "kv-blocks",
                          "kv-cache-mib", "block-size", "max-num-seqs", "max-batched-tokens", "suite", "context"})
        if (args.has(f)) throw UsageError(std::string("--") + f + " sets up a local engine; with --backend remote the server has its own");
    const int concurrency = args.get_int("concurrency", 0);
    if (concurrency < 0) throw Error("--concurrency must be positive");
    const double rate = args.get_double("rate", 0);
    if (rate < 0 || std::isnan(rate)) throw Error("--rate must be a positive number of requests per second");
    int vocab_size = 0, bos_id = -1;
    if (!args.has("prompts")) {
        if (auto spec = args.get("model")) {
            const std::unique_ptr<Model> m = load_model(*spec, LoadOptions{});
            vocab_size = m->config.vocab_size;
            bos_id = m->config.bos_token_id < vocab_size ? m->config.bos_token_id : -1;
        } else {
            vocab_size = args.get_int("vocab-size", 0);
            if (vocab_size < 4) throw UsageError("a synthetic workload for --backend remote needs --model DIR (the server's model, for its vocabulary) or --vocab-size N");
        }
    }
    RemoteEngineSpec o;
    o.endpoint = args.require("endpoint");
    o.api_key = args.get_or("api-key", "");
    o.model = args.get_or("remote-model", "");
    const std::unique_ptr<EngineClient> engine = make_engine(EngineSpec{o});
    const Workload workload = workload_from_args(args, seed, vocab_size, bos_id);
    RunInfo info;
    info.model = engine->model_info().name;
    info.backend = "remote";
    info.device = engine->model_info().device;
    info.workload = workload.description;
    info.concurrency = concurrency;
    info.rate = rate;
    info.remote = true;
    const RunResult result = run_workload(*engine, workload, concurrency);
    const nlohmann::json summary = summarize(result, info);
    std::fputs(json ? (summary.dump() + "\n").c_str() : format_table(summary).c_str(), stdout);
    int failed = 0;
    for (const auto& r : result.records) {
        if (r.error.empty()) continue;
        if (failed++ == 0) std::fprintf(stderr, "folio-bench: request %zu failed: %s\n", r.index, r.error.c_str());
    }
    if (failed > 1) std::fprintf(stderr, "folio-bench: %d requests failed in all\n", failed);
    return failed ? 3 : 0;
}

int run(int argc, char** argv) {
    const cli::Args args(argc, argv, 1,
                         {"model", "tokenizer", "backend", "threads", "seed", "prompts", "max-tokens", "num-requests", "input-len",
                          "output-len", "shared-prefix", "temperature", "rate", "concurrency", "batching", "static-batch-size",
                          "prefix-caching", "kv-blocks", "kv-cache-mib", "block-size", "max-num-seqs", "max-batched-tokens",
                          "dump-outputs", "cpu-activations", "suite", "rounds", "streams", "prefill-len", "decode-tokens", "bandwidth-mib",
                          "context", "history-tokens", "window-s", "quantization", "kv-cache-dtype", "endpoint", "api-key",
                          "remote-model", "vocab-size"},
                         {"json", "ignore-eos", "calculate-kv-scales"});
    args.expect_no_positional();
    const std::string suite = args.get_or("suite", "");
    if (!suite.empty() && suite != "compare" && suite != "decode" && suite != "frontdoor")
        throw UsageError("--suite takes decode, compare or frontdoor, got '" + suite + "'");
    const bool json = args.has("json");
    const uint64_t seed = uint64_t(args.get_int("seed", 0));
    if (args.get_or("backend", "") == "remote") return run_remote(args, json, seed);
    for (const char* f : {"endpoint", "api-key", "remote-model", "vocab-size"})
        if (args.has(f)) throw UsageError(std::string("--") + f + " is for --backend remote");
    const std::string spec = args.require("model");

    BackendOptions backend;
    backend.kind = parse_backend_kind(args.get_choice("backend", {"auto", "cpu", "cuda"}, "auto"));
    backend.num_threads = args.get_int("threads", 0);
    backend.cpu_activations = parse_cpu_activations(args.get_choice("cpu-activations", {"int8", "exact"}, "int8"));
    backend.kv_scales_from_first_batch = args.has("calculate-kv-scales");

    EngineOptions engine;
    engine.backend = backend;
    engine.block_size = args.get_int("block-size", 16);
    engine.num_kv_blocks = args.get_int("kv-blocks", 0);
    if (engine.num_kv_blocks < 0) throw UsageError("--kv-blocks must be positive");
    const int kv_mib = args.get_int("kv-cache-mib", 0);
    if (kv_mib < 0) throw UsageError("--kv-cache-mib must be positive");
    engine.kv_cache_bytes = uint64_t(kv_mib) << 20;
    engine.kv_cache_dtype = parse_kv_cache_dtype(args.get_or("kv-cache-dtype", "auto"));
    if (backend.kv_scales_from_first_batch && !is_fp8(engine.kv_cache_dtype))
        throw Error("--calculate-kv-scales sets the scales of an FP8 KV cache: add --kv-cache-dtype fp8");
    engine.max_num_seqs = args.get_int("max-num-seqs", 256);
    engine.max_num_batched_tokens = args.get_int("max-batched-tokens", 2048);
    engine.enable_prefix_caching = parse_on_off(args.get_or("prefix-caching", "on"), "prefix-caching");
    const std::string batching = args.get_or("batching", "continuous");
    if (batching == "static") engine.batching = BatchingMode::Static;
    else if (batching != "continuous") throw UsageError("--batching takes continuous or static, got '" + batching + "'");
    engine.static_batch_size = args.get_int("static-batch-size", 16);
    const int concurrency = args.get_int("concurrency", 0);
    if (concurrency < 0) throw UsageError("--concurrency must be positive");
    if (concurrency > 0) engine.static_batch_size = std::min(engine.static_batch_size, concurrency);
    const double rate = args.get_double("rate", 0);
    if (rate < 0 || std::isnan(rate)) throw UsageError("--rate must be a positive number of requests per second");

    LoadOptions load;
    load.tokenizer_path = args.get_or("tokenizer", "");
    load.quantization = args.get_or("quantization", "");
    std::unique_ptr<Model> loaded = load_model(spec, load);
    if (auto context = args.get("context")) {
        // A dummy's shape is a real checkpoint's, but nothing in its random weights depends on the
        // context length: it may be longer, e.g. for --suite frontdoor's 32k-token history.
        if (spec.rfind("dummy:", 0) != 0) throw UsageError("--context applies to dummy: models only; a checkpoint's context is its own");
        const int n = args.get_int("context", 0);
        if (n < 16) throw UsageError("--context must be at least 16 tokens, got '" + *context + "'");
        loaded->config.max_position_embeddings = n;
        loaded->tokenizer_config.model_max_length = n;
    }
    std::shared_ptr<const Model> model = std::move(loaded);
    const LoadReport load_report{model->load_stats.seconds, model->load_stats.quantize_seconds, model->load_stats.peak_rss_bytes};

    // The decode suite steps an engine itself; the workloads drive the threaded one as any front end.
    auto make_core = [&](const EngineOptions& o) { return make_sync_engine(model, o); };

    if (suite == "decode") {
        DecodeSuiteOptions o;
        o.rounds = args.get_int("rounds", 3);
        if (auto s = args.get("streams")) o.streams = parse_int_list(*s, "streams");
        o.prefill_len = args.get_int("prefill-len", 512);
        o.decode_tokens = args.get_int("decode-tokens", 32);
        o.threads = backend.num_threads;
        o.seed = seed + 1;
        const int mib = args.get_int("bandwidth-mib", 1024);
        if (mib < 1 || o.prefill_len < 1 || o.decode_tokens < 1) throw UsageError("--bandwidth-mib, --prefill-len and --decode-tokens must be positive");
        o.bandwidth_bytes = size_t(mib) << 20;
        nlohmann::json result = run_decode_suite(
            *model,
            [&](int64_t blocks, int seqs, int tokens) {
                EngineOptions e = engine;
                e.num_kv_blocks = blocks;
                e.max_num_seqs = seqs;
                e.max_num_batched_tokens = tokens;
                e.enable_prefix_caching = false;  // every round computes its prompts
                e.batching = BatchingMode::Continuous;
                return make_core(e);
            },
            o);
        add_load_report(result, load_report);
        std::fputs(json ? (result.dump() + "\n").c_str() : format_decode_suite(result).c_str(), stdout);
        return 0;
    }
    if (suite == "frontdoor") {
        FrontDoorSuiteOptions o;
        if (auto s = args.get("streams")) {
            const std::vector<int> n = parse_int_list(*s, "streams");
            if (n.size() != 1) throw UsageError("--suite frontdoor takes one number of --streams, got '" + *s + "'");
            o.streams = n[0];
        }
        o.history_tokens = args.get_int("history-tokens", 32000);
        o.rounds = args.get_int("rounds", 1);
        o.window_s = args.get_double("window-s", 1.0);
        o.seed = seed + 1;
        const nlohmann::json result = run_front_door_suite(model, engine, o);
        std::fputs(json ? (result.dump() + "\n").c_str() : format_front_door_suite(result).c_str(), stdout);
        return 0;
    }

    Workload workload = workload_from_args(args, seed, model->config.vocab_size,
                                           model->config.bos_token_id < model->config.vocab_size ? model->config.bos_token_id : -1);

    RunInfo info;
    info.model = model->name + " (" + model->quantization_name() + ")";
    info.workload = workload.description;
    info.concurrency = concurrency;
    info.rate = rate;
    info.block_size = engine.block_size;

    if (suite == "compare") {
        const std::vector<CompareConfig> configs = {
            {"continuous, prefix on", BatchingMode::Continuous, true, concurrency},
            {"continuous, prefix off", BatchingMode::Continuous, false, concurrency},
            {"static (batch " + std::to_string(engine.static_batch_size) + ")", BatchingMode::Static, true, concurrency},
            {"single stream", BatchingMode::Continuous, true, 1},
        };
        auto probe = make_local_engine(model, engine);
        info.backend = probe->model_info().backend;
        info.device = probe->model_info().device;
        probe.reset();
        const nlohmann::json result = run_compare_suite(workload, args.get_int("rounds", 1), info,
                                                        [&](const CompareConfig& c) {
                                                            EngineOptions e = engine;
                                                            e.batching = c.batching;
                                                            e.enable_prefix_caching = c.prefix_caching;
                                                            return make_local_engine(model, e);
                                                        },
                                                        configs);
        std::fputs(json ? (result.dump() + "\n").c_str() : format_compare_suite(result).c_str(), stdout);
        return 0;
    }

    const std::unique_ptr<Engine> local = make_local_engine(model, engine);
    const EngineStats first = local->stats();
    info.backend = local->model_info().backend;
    info.device = local->model_info().device;
    info.batching = batching;
    info.prefix_caching = engine.enable_prefix_caching;
    info.kv_blocks = first.kv.blocks_total;
    info.kv_cache_dtype = first.kv_cache_dtype;
    info.kv_bytes_per_block = first.kv_bytes_per_block;
    const RunResult result = run_workload(*local, workload, concurrency, [&] { local->set_input_closed(true); });
    if (auto path = args.get("dump-outputs")) write_outputs(result, *path);
    nlohmann::json summary = summarize(result, info);
    add_load_report(summary, load_report);
    std::fputs(json ? (summary.dump() + "\n").c_str() : format_table(summary).c_str(), stdout);
    int failed = 0;
    for (const auto& r : result.records) {
        if (r.error.empty()) continue;
        if (failed++ == 0) std::fprintf(stderr, "folio-bench: request %zu failed: %s\n", r.index, r.error.c_str());
    }
    if (failed > 1) std::fprintf(stderr, "folio-bench: %d requests failed in all\n", failed);
    return failed ? 3 : 0;
}

}  // namespace
}  // namespace folio::bench

int main(int argc, char** argv) {
    folio::cli::log_to_stderr();  // stdout is the table or the JSON
    return folio::cli::run_program("folio-bench", folio::bench::kUsage, [&] { return folio::bench::run(argc, argv); });
}
