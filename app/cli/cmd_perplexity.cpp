// folio-cli perplexity --model M --file TEXT [--ctx 512] [--parallel 8] [--quantization fp8]
//   [--kv-cache-dtype fp8] [--calculate-kv-scales] [--save-logits BASE.lp | --kl-divergence BASE.lp] [--json]
// What a quantization costs: perplexity over non-overlapping windows of the text (engine/eval), with a
// progress bar on stderr; --save-logits keeps every scored token's distribution and --kl-divergence
// compares a run against such a file (mean KL, top-1 agreement), as llama.cpp's perplexity tool does
// with --kl-divergence-base / --kl-divergence.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "app/cli/engine_setup.h"
#include "engine/backend/backend.h"
#include "engine/client/make_engine.h"
#include "engine/core/error.h"
#include "engine/eval/logprob_file.h"
#include "engine/eval/perplexity.h"

namespace folio::cli {

namespace {

std::string read_text(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw Error("--file " + path + ": no such file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("--file " + path + ": cannot read it");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// [=========>          ]  45%  1234/2700 tokens  120 tok/s on a terminal, redrawn at most ten times
// a second; into a file or pipe, one line per tenth of the work.
class ProgressBar {
public:
    void update(int64_t done, int64_t total) {
        const int pct = total > 0 ? int(done * 100 / total) : 100;
        const auto now = std::chrono::steady_clock::now();
        if (done != total) {
            if (tty_ ? (pct == last_ || now - drawn_ < std::chrono::milliseconds(100)) : pct / 10 == last_ / 10) return;
        }
        last_ = pct;
        drawn_ = now;
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
        char bar[31];
        const int fill = pct * 30 / 100;
        for (int i = 0; i < 30; ++i) bar[i] = i < fill ? '=' : (i == fill ? '>' : ' ');
        bar[30] = '\0';
        std::fprintf(stderr, "%s[%s] %3d%%  %lld/%lld tokens  %.0f tok/s", tty_ ? "\r" : "", bar, pct, static_cast<long long>(done),
                     static_cast<long long>(total), s > 0 ? double(done) / s : 0.0);
        if (done == total || !tty_) std::fputc('\n', stderr);
        std::fflush(stderr);
    }

private:
    bool tty_ = isatty(fileno(stderr)) != 0;
    int last_ = -1;
    std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now(), drawn_ = t0_;
};

std::string usage() {
    return std::string(
               "usage: folio-cli perplexity --model DIR|dummy:NAME --file TEXT [options]\n"
               "\n"
               "What a quantization costs: perplexity over non-overlapping windows of the text, with a progress\n"
               "bar on stderr. --save-logits keeps every scored token's distribution; --kl-divergence compares a\n"
               "run with such a file (mean KL, same top token), as llama.cpp's perplexity tool does.\n"
               "\n"
               "  --file TEXT              the text to score (UTF-8)\n"
               "  --ctx N                  window length in tokens (default 512)\n"
               "  --parallel N             windows scored together (default 8)\n"
               "  --save-logits BASE.lp    write the distributions of a base run\n"
               "  --kl-divergence BASE.lp  compare this run with a base run's distributions\n"
               "  --json                   one JSON object on stdout\n"
               "\n") +
           model_options_usage();
}

int run(int argc, char** argv, int first) {
    auto options = model_options();
    options.insert({"file", "ctx", "parallel", "save-logits", "kl-divergence"});
    auto flags = model_flags();
    flags.insert("json");
    Args args(argc, argv, first, options, flags);
    args.expect_no_positional();
    const std::string text = read_text(args.require("file"));
    const int ctx = args.get_int("ctx", 512);
    const int parallel = args.get_int("parallel", 8);
    if (ctx < 2) throw UsageError("--ctx must be at least 2");
    if (parallel < 1) throw UsageError("--parallel must be at least 1");
    if (args.has("save-logits") && args.has("kl-divergence"))
        throw UsageError("--save-logits writes a base run and --kl-divergence compares with one: use one per run");
    const bool json_out = args.has("json");

    const EngineOptions eo = engine_options_from_args(args);
    auto model = load_model_from_args(args, !json_out);
    const std::vector<int> ids = model->tokenizer->encode(text);
    const std::vector<int32_t> tokens(ids.begin(), ids.end());
    auto backend = make_model_backend(*model, eo.backend);

    PerplexityOptions po;
    po.ctx = ctx;
    po.parallel = parallel;
    po.kv_cache_dtype = eo.kv_cache_dtype;
    ProgressBar bar;
    po.progress = [&bar](int64_t done, int64_t total) { bar.update(done, total); };

    const std::string native = backend->name() == "cpu" ? "fp32" : "fp16";
    const std::string kv_name = kv_cache_dtype_name(eo.kv_cache_dtype, native) + (eo.backend.kv_scales_from_first_batch ? " (calibrated)" : "");
    LogprobHeader header;
    header.model = model->name;
    header.weights = model->quantization_name();
    header.kv_cache_dtype = kv_name;
    header.ctx = ctx;
    header.vocab = model->config.vocab_size;
    header.tokens = int64_t(tokens.size());
    header.tokens_hash = token_stream_hash(tokens, ctx);

    std::unique_ptr<LogprobWriter> writer;
    std::unique_ptr<LogprobReader> reader;
    KlStats kl;
    std::vector<float> base_lp;
    if (auto path = args.get("save-logits")) {
        writer = std::make_unique<LogprobWriter>(*path, header);
        po.on_logits = [&](int64_t i, int32_t target, const float* row) { writer->write(i, target, row); };
    } else if (auto path = args.get("kl-divergence")) {
        reader = std::make_unique<LogprobReader>(*path);
        const LogprobHeader& b = reader->header();
        if (b.vocab != header.vocab)
            throw Error(*path + " was written for a vocabulary of " + std::to_string(b.vocab) + " tokens, this model has " +
                        std::to_string(header.vocab) + ": compare runs of the same model");
        if (b.ctx != ctx || b.tokens != header.tokens || b.tokens_hash != header.tokens_hash)
            throw Error(*path + " scored other windows (" + std::to_string(b.tokens) + " tokens, ctx " + std::to_string(b.ctx) +
                        "; this run: " + std::to_string(header.tokens) + " tokens, ctx " + std::to_string(ctx) +
                        "): use the same --file, --ctx and tokenizer as the base run");
        base_lp.resize(size_t(b.vocab));
        po.on_logits = [&](int64_t i, int32_t target, const float* row) {
            if (reader->read(i, base_lp.data()) != target) throw Error(*args.get("kl-divergence") + ": record " + std::to_string(i) + " scored another token");
            kl.add(base_lp.data(), row, header.vocab, target);
        };
    }

    const auto t0 = std::chrono::steady_clock::now();
    const PerplexityResult r = folio::run_perplexity(*backend, *model, tokens, po);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (writer) writer->close();

    if (json_out) {
        nlohmann::ordered_json j;
        j["model"] = model->name;
        j["weights"] = header.weights;
        j["kv_cache_dtype"] = kv_name;
        j["backend"] = backend->name();
        j["ctx"] = ctx;
        j["windows"] = r.windows;
        j["tokens"] = r.tokens;
        j["ppl"] = r.ppl;
        j["ppl_error"] = r.ppl_error;
        j["mean_nll"] = r.mean_nll;
        j["seconds"] = seconds;
        j["tok_s"] = seconds > 0 ? double(r.tokens) / seconds : 0.0;
        j["load_seconds"] = model->load_stats.seconds;
        j["peak_rss_bytes"] = model->load_stats.peak_rss_bytes;
        if (reader) {
            j["kl"] = {{"base", *args.get("kl-divergence")},
                       {"base_weights", reader->header().weights},
                       {"base_kv_cache_dtype", reader->header().kv_cache_dtype},
                       {"base_ppl", kl.base_ppl()},
                       {"ppl_ratio", r.ppl / kl.base_ppl()},
                       {"mean_kl", kl.mean_kl()},
                       {"mean_kl_error", kl.kl_stderr()},
                       {"max_kl", kl.max_kl()},
                       {"top1_agreement", kl.top1_agreement()}};
        }
        std::puts(j.dump().c_str());
        return 0;
    }
    std::printf("%s (%s weights, %s KV cache) on %s: %d windows of up to %d tokens, %lld tokens scored in %.1f s (%.0f tok/s)\n",
                model->name.c_str(), header.weights.c_str(), kv_name.c_str(), backend->name().c_str(), r.windows, ctx,
                static_cast<long long>(r.tokens), seconds, seconds > 0 ? double(r.tokens) / seconds : 0.0);
    std::printf("PPL = %.4f +/- %.4f\n", r.ppl, r.ppl_error);
    if (reader) {
        std::printf("base %s (%s weights, %s KV cache): PPL %.4f, ratio %.4f\n", args.get("kl-divergence")->c_str(),
                    reader->header().weights.c_str(), reader->header().kv_cache_dtype.c_str(), kl.base_ppl(), r.ppl / kl.base_ppl());
        std::printf("KL divergence: mean %.6f +/- %.6f, max %.6f; same top token %.2f%%\n", kl.mean_kl(), kl.kl_stderr(), kl.max_kl(),
                    100.0 * kl.top1_agreement());
    }
    if (writer) std::printf("saved the distributions of %lld tokens to %s\n", static_cast<long long>(r.tokens), args.get("save-logits")->c_str());
    return 0;
}

}  // namespace

const Command perplexity_command = {"perplexity", "perplexity of a text, and KL divergence to a base run", usage, run};

}  // namespace folio::cli
