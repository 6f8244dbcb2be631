#include "app/cli/engine_setup.h"

#include <cstdio>
#include <memory>
#include <unistd.h>

#include "app/cli/command_line.h"
#include "engine/client/make_engine.h"
#include "engine/core/error.h"

namespace folio::cli {

std::string backend_from_args(const Args& args) {
    const std::string b = args.get_or("backend", "auto");
    if (b != "auto" && b != "cpu" && b != "cuda") throw UsageError("unknown backend '" + b + "': use auto, cpu or cuda");
    return b;
}

CpuActivations cpu_activations_from_args(const Args& args) {
    return parse_cpu_activations(args.get_choice("cpu-activations", {"int8", "exact"}, "int8"));
}

std::set<std::string> model_options() {
    return {"model", "backend", "threads", "tokenizer", "kv-cache-mb", "weights-seed", "cpu-activations", "quantization", "kv-cache-dtype"};
}

std::set<std::string> model_flags() { return {"calculate-kv-scales"}; }

std::set<std::string> sampling_options() {
    return {"temperature", "top-p", "top-k", "min-p", "repetition-penalty", "presence-penalty", "frequency-penalty", "seed"};
}

const char* model_options_usage() {
    return "model:\n"
           "  --model DIR|dummy:NAME   a Hugging Face folder, or a random model at a real shape (dummy:tiny,\n"
           "                           dummy:llama-2-7b-awq, ...)\n"
           "  --backend auto|cpu|cuda  auto: CUDA when a GPU and the CUDA module are present (default)\n"
           "  --threads N              CPU threads (default: all)\n"
           "  --tokenizer PATH         a tokenizer.model for dummy models (default: a byte tokenizer)\n"
           "  --kv-cache-mb N          KV cache size (default: what memory allows)\n"
           "  --weights-seed N         seed of a dummy model's weights (default 1234)\n"
           "  --cpu-activations int8|exact\n"
           "                           the CPU backend's fast int8 activations (default), or its exact mode\n"
           "                           (three int8 parts, fp32-class results: the reference the tests use)\n"
           "  --quantization fp8       fp16/bf16 weights converted to FP8 at load\n"
           "  --kv-cache-dtype auto|fp8|fp8_e4m3|fp8_e5m2\n"
           "                           the KV cache's element type (auto: the model's dtype)\n"
           "  --calculate-kv-scales    FP8 KV scales measured on the first batch (with --kv-cache-dtype fp8)\n";
}

const char* sampling_options_usage() {
    return "sampling (default: the checkpoint's generation_config.json, else greedy):\n"
           "  --temperature T          0 is greedy\n"
           "  --top-p P                in (0, 1]\n"
           "  --top-k K                0: off\n"
           "  --min-p M                in [0, 1]\n"
           "  --repetition-penalty R   > 0 (1: off)\n"
           "  --presence-penalty X  --frequency-penalty X\n"
           "  --seed S                 a non-negative integer\n";
}

std::shared_ptr<const Model> load_model_from_args(const Args& args, bool show_progress) {
    LoadOptions lo;
    lo.tokenizer_path = args.get_or("tokenizer", "");
    lo.seed = uint64_t(args.get_int("weights-seed", 1234));
    lo.quantization = args.get_or("quantization", "");
    if (show_progress) lo.progress = terminal_load_progress();
    auto m = load_model(args.require("model"), lo);
    if (show_progress && m->load_stats.quantize_seconds > 0)
        std::fprintf(stderr, "loaded %s in %.1f s, converted to FP8 in %.1f s (%.0f -> %.0f MiB of linears), peak memory %.0f MiB\n",
                     m->name.c_str(), m->load_stats.seconds, m->load_stats.quantize_seconds,
                     double(m->load_stats.quantized_bytes_before) / 1048576.0, double(m->load_stats.quantized_bytes_after) / 1048576.0,
                     double(m->load_stats.peak_rss_bytes) / 1048576.0);
    return m;
}

LoadProgressFn terminal_load_progress() {
    if (!isatty(STDERR_FILENO)) return {};
    // One line on stderr, rewritten in place ("loading: mapping weights 12/23 layers") and erased when
    // a counted phase completes, so that nothing is left before the reply.
    struct Line {
        std::string phase;
        int percent = -1;
    };
    return [line = std::make_shared<Line>()](const LoadProgress& p) {
        const int percent = int(p.fraction() * 100);
        if (p.phase == line->phase && percent == line->percent) return;
        line->phase = p.phase;
        line->percent = percent;
        if (p.total > 0 && p.done == p.total) {
            std::fputs("\r\033[K", stderr);
        } else if (p.total > 0) {
            std::fprintf(stderr, "\r\033[Kloading: %s %lld/%lld %s", p.phase, (long long)p.done, (long long)p.total, p.unit);
        } else {
            std::fprintf(stderr, "\r\033[Kloading: %s", p.phase);
        }
        std::fflush(stderr);
    };
}

EngineOptions engine_options_from_args(const Args& args) {
    EngineOptions o;
    o.backend.kind = parse_backend_kind(backend_from_args(args));
    o.backend.num_threads = args.get_int("threads", 0);
    o.backend.progress = terminal_load_progress();
    o.backend.cpu_activations = cpu_activations_from_args(args);
    const int mb = args.get_int("kv-cache-mb", 0);
    if (mb < 0) throw UsageError("--kv-cache-mb must be positive");
    o.kv_cache_bytes = uint64_t(mb) << 20;
    o.kv_cache_dtype = parse_kv_cache_dtype(args.get_or("kv-cache-dtype", "auto"));
    o.backend.kv_scales_from_first_batch = args.has("calculate-kv-scales");
    if (o.backend.kv_scales_from_first_batch && !is_fp8(o.kv_cache_dtype))
        throw Error("--calculate-kv-scales sets the scales of an FP8 KV cache: add --kv-cache-dtype fp8");
    return o;
}

SamplingParams sampling_from_args(const Args& args, const Model& model) { return sampling_from_args(args, model.generation); }

SamplingParams sampling_from_args(const Args& args, const GenerationDefaults& g) {
    SamplingParams s;
    s.temperature = g.do_sample ? g.temperature.value_or(1.0f) : 0.0f;
    if (g.do_sample && g.top_p) s.top_p = *g.top_p;
    if (g.do_sample && g.top_k) s.top_k = *g.top_k;
    if (g.repetition_penalty) s.repetition_penalty = *g.repetition_penalty;
    s.temperature = float(args.get_double("temperature", s.temperature));
    s.top_p = float(args.get_double("top-p", s.top_p));
    s.top_k = args.get_int("top-k", s.top_k);
    s.min_p = float(args.get_double("min-p", s.min_p));
    s.repetition_penalty = float(args.get_double("repetition-penalty", s.repetition_penalty));
    s.presence_penalty = float(args.get_double("presence-penalty", s.presence_penalty));
    s.frequency_penalty = float(args.get_double("frequency-penalty", s.frequency_penalty));
    if (auto seed = args.get("seed")) {
        try {
            s.seed = std::stoull(*seed);
        } catch (const std::exception&) {
            throw UsageError("--seed needs a non-negative integer, got '" + *seed + "'");
        }
    }
    if (s.temperature < 0) throw UsageError("--temperature must be >= 0");
    if (!(s.top_p > 0 && s.top_p <= 1)) throw UsageError("--top-p must be in (0, 1]");
    if (s.top_k < 0) throw UsageError("--top-k must be >= 0");
    if (s.min_p < 0 || s.min_p > 1) throw UsageError("--min-p must be in [0, 1]");
    if (s.repetition_penalty <= 0) throw UsageError("--repetition-penalty must be > 0");
    return s;
}

std::set<std::string> remote_options() { return {"endpoint", "api-key", "remote-model"}; }

const char* remote_options_usage() {
    return "remote (instead of --model):\n"
           "  --backend remote --endpoint URL [--api-key KEY] [--remote-model NAME]\n"
           "                           an OpenAI-compatible server (folio-server, vLLM, llama.cpp) runs the model\n";
}

bool is_remote(const Args& args) { return args.get_or("backend", "") == "remote"; }

OpenedEngine open_engine(const Args& args, bool show_progress) {
    OpenedEngine opened;
    if (!is_remote(args)) {
        for (const char* flag : {"endpoint", "api-key", "remote-model"})
            if (args.has(flag)) throw UsageError(std::string("--") + flag + " is for --backend remote");
        // Loaded here rather than by make_engine: the sampling falls back to its generation_config.json.
        auto model = load_model_from_args(args, show_progress);
        opened.sampling = sampling_from_args(args, *model);
        opened.client = make_local_engine(std::move(model), engine_options_from_args(args));
        return opened;
    }
    for (const char* flag : {"model", "threads", "tokenizer", "kv-cache-mb", "weights-seed", "cpu-activations"})
        if (args.has(flag))
            throw UsageError(std::string("--") + flag + " sets up a local model; with --backend remote the server runs the model (name it with --remote-model)");
    RemoteEngineSpec spec;
    spec.endpoint = args.require("endpoint");
    spec.api_key = args.get_or("api-key", "");
    spec.model = args.get_or("remote-model", "");
    // Checked before the server is asked anything.
    opened.sampling = sampling_from_args(args, GenerationDefaults{});  // no local generation_config.json: the flags, else greedy
    opened.client = make_engine(EngineSpec{std::move(spec)});
    return opened;
}

std::string model_display_name(const EngineModelInfo& info) {
    return info.remote ? info.name : info.name + " (" + info.quantization + ")";
}

}  // namespace folio::cli
