#include "app/cli/engine_setup.h"

#include <cstdio>

#include "engine/core/error.h"

namespace folio::cli {

std::set<std::string> model_options() {
    return {"model", "backend", "threads", "tokenizer", "kv-cache-mb", "weights-seed", "cpu-activations", "quantization", "kv-cache-dtype"};
}

std::set<std::string> model_flags() { return {"calculate-kv-scales"}; }

std::set<std::string> sampling_options() {
    return {"temperature", "top-p", "top-k", "min-p", "repetition-penalty", "presence-penalty", "frequency-penalty", "seed"};
}

std::shared_ptr<const Model> load_model_from_args(const Args& args, bool show_progress) {
    LoadOptions lo;
    lo.tokenizer_path = args.get_or("tokenizer", "");
    lo.seed = uint64_t(args.get_int("weights-seed", 1234));
    lo.quantization = args.get_or("quantization", "");
    int last = -1;
    if (show_progress)
        lo.progress = [&last](float p) {
            const int pct = int(p * 100);
            if (pct / 10 != last / 10) {
                std::fprintf(stderr, "\rloading %3d%%", pct);
                std::fflush(stderr);
                last = pct;
            }
        };
    auto m = load_model(args.require("model"), lo);
    if (show_progress) {
        std::fprintf(stderr, "\r            \r");
        if (m->load_stats.quantize_seconds > 0)
            std::fprintf(stderr, "loaded %s in %.1f s, converted to FP8 in %.1f s (%.0f -> %.0f MiB of linears), peak memory %.0f MiB\n",
                         m->name.c_str(), m->load_stats.seconds, m->load_stats.quantize_seconds,
                         double(m->load_stats.quantized_bytes_before) / 1048576.0, double(m->load_stats.quantized_bytes_after) / 1048576.0,
                         double(m->load_stats.peak_rss_bytes) / 1048576.0);
    }
    return m;
}

EngineOptions engine_options_from_args(const Args& args) {
    EngineOptions o;
    o.backend.kind = parse_backend_kind(args.get_or("backend", "auto"));
    o.backend.num_threads = args.get_int("threads", 0);
    o.backend.cpu_activations = parse_cpu_activations(args.get_or("cpu-activations", "int8"));
    const int mb = args.get_int("kv-cache-mb", 0);
    if (mb < 0) throw Error("--kv-cache-mb must be positive");
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
            throw Error("--seed needs a non-negative integer, got '" + *seed + "'");
        }
    }
    if (s.temperature < 0) throw Error("--temperature must be >= 0");
    if (!(s.top_p > 0 && s.top_p <= 1)) throw Error("--top-p must be in (0, 1]");
    if (s.top_k < 0) throw Error("--top-k must be >= 0");
    if (s.min_p < 0 || s.min_p > 1) throw Error("--min-p must be in [0, 1]");
    if (s.repetition_penalty <= 0) throw Error("--repetition-penalty must be > 0");
    return s;
}

}  // namespace folio::cli
