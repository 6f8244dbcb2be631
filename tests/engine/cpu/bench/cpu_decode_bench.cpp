// A developer benchmark of the CPU backend (not a test, not in ctest): weight bytes per token, decode
// tokens/s at several stream counts, prefill tokens/s, and the read bandwidth of a sum-reduction over
// 1 GiB with all cores in the same run.
//   cpu_decode_bench [MODEL=dummy:llama-0.8b-awq] [--steps N] [--prefill N] [--streams 1,4,16] [--exact] (default: int8 activations)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "engine/backends/backend_factory.h"
#include "engine/core/thread_pool.h"
#include "engine/model/dummy_model.h"
#include "engine/model/model.h"

namespace {

using Clock = std::chrono::steady_clock;
double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double read_bandwidth(folio::ThreadPool& pool) {
    const size_t n = (size_t(1) << 30) / sizeof(float);
    std::vector<float> buf(n, 1.0f);
    std::vector<double> sums(size_t(pool.size()) * 8);
    double best = 0;
    for (int rep = 0; rep < 5; ++rep) {
        const auto t0 = Clock::now();
        pool.run(pool.size(), [&](int64_t w) {
            const size_t b = n / size_t(pool.size()) * size_t(w), e = w + 1 == pool.size() ? n : b + n / size_t(pool.size());
            float acc[16] = {};
            for (size_t i = b; i + 16 <= e; i += 16)
                for (int l = 0; l < 16; ++l) acc[l] += buf[i + size_t(l)];
            double s = 0;
            for (float a : acc) s += a;
            sums[size_t(w) * 8] = s;
        });
        best = std::max(best, double(n * sizeof(float)) / secs(t0, Clock::now()));
    }
    return best;
}

struct Stream { std::vector<int32_t> blocks; int len = 0; };

const char* kUsage =
    "usage: cpu_decode_bench [MODEL] [--steps N] [--prefill N] [--streams 1,4,16] [--threads N] [--exact]\n"
    "\n"
    "The CPU backend alone: weight bytes per token, decode tokens/s at each stream count, prefill\n"
    "tokens/s, and the read bandwidth of this machine in the same run. MODEL: a folder or dummy:NAME\n"
    "(default dummy:llama-0.8b-awq).\n"
    "\n"
    "  --steps N       decode steps per stream count (default 16)\n"
    "  --prefill N     prompt tokens of the prefill measurement (default 512)\n"
    "  --streams LIST  stream counts, comma-separated (default 1,4,16)\n"
    "  --threads N     CPU threads (default: all)\n"
    "  --exact         the exact three-part mode instead of plain int8 activations (the default)\n";

int positive(const folio::cli::Args& args, const char* name, int fallback) {
    const int v = args.get_int(name, fallback);
    if (v < 1) throw folio::cli::UsageError(std::string("--") + name + " must be positive");
    return v;
}

int run(int argc, char** argv) {
    const folio::cli::Args args(argc, argv, 1, {"steps", "prefill", "threads", "streams"}, {"exact"});
    if (args.positional().size() > 1) throw folio::cli::UsageError("one MODEL at most, got '" + args.positional()[1] + "' too");
    const std::string spec = args.positional().empty() ? "dummy:llama-0.8b-awq" : args.positional()[0];
    const int steps = positive(args, "steps", 16), prefill = positive(args, "prefill", 512);
    std::vector<int> stream_counts;
    std::stringstream list(args.get_or("streams", "1,4,16"));
    for (std::string item; std::getline(list, item, ',');) {
        char* end = nullptr;
        const long v = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end || v < 1 || v > 4096) throw folio::cli::UsageError("--streams needs positive counts separated by commas");
        stream_counts.push_back(int(v));
    }
    if (stream_counts.empty()) throw folio::cli::UsageError("--streams is empty");
    folio::BackendOptions bo;
    bo.kind = folio::BackendKind::Cpu;
    bo.num_threads = args.get_int("threads", 0);
    if (args.has("exact")) bo.cpu_activations = folio::CpuActivations::Exact;
    auto model = folio::load_model(spec);
    auto backend = folio::make_backend(*model, bo);
    const auto& c = model->config;
    const int max_streams = *std::max_element(stream_counts.begin(), stream_counts.end());
    const int ctx = std::max(prefill, 64 + steps + 8);
    folio::KvLayout layout{c.num_layers, c.num_kv_heads, c.head_dim, 16, int64_t(max_streams + 1) * ((ctx + 15) / 16)};
    backend->allocate_kv(layout);
    std::printf("model %s on %s\n", spec.c_str(), backend->device_name().c_str());
    std::printf("weight_bytes_per_token %llu\n", (unsigned long long)model->weights.bytes_per_token);
    double bw = 0;
    {
        folio::ThreadPool pool(bo.num_threads);
        bw = read_bandwidth(pool);
    }
    std::printf("read_bandwidth_GBps %.2f\n", bw / 1e9);

    std::vector<float> logits;
    const int blocks_per = (ctx + 15) / 16;
    double tps1 = 0;
    for (int S : stream_counts) {
        std::vector<Stream> streams(static_cast<size_t>(S));
        for (int s = 0; s < S; ++s)
            for (int b = 0; b < blocks_per; ++b) streams[size_t(s)].blocks.push_back(s * blocks_per + b);
        // A short prompt per stream (one batch), then timed single-token steps for all streams.
        const int prompt = 32;
        auto step = [&](int n_tok) {
            folio::ForwardBatch batch;
            for (int s = 0; s < S; ++s) {
                folio::SeqSlice sl;
                sl.seq_id = s;
                sl.token_offset = batch.num_tokens();
                sl.num_tokens = n_tok;
                sl.context_before = streams[size_t(s)].len;
                sl.block_table_offset = int(batch.block_tables.size());
                sl.num_blocks = blocks_per;
                sl.want_logits = true;
                for (int t = 0; t < n_tok; ++t) batch.tokens.push_back(int32_t((s * 131 + streams[size_t(s)].len + t * 7) % c.vocab_size));
                batch.block_tables.insert(batch.block_tables.end(), streams[size_t(s)].blocks.begin(), streams[size_t(s)].blocks.end());
                batch.seqs.push_back(sl);
                streams[size_t(s)].len += n_tok;
            }
            backend->forward(batch, logits);
        };
        step(prompt);
        step(1);  // warm-up
        const auto t0 = Clock::now();
        double fastest = 1e30;
        for (int i = 0; i < steps; ++i) {
            const auto s0 = Clock::now();
            step(1);
            fastest = std::min(fastest, secs(s0, Clock::now()));
        }
        const double dt = secs(t0, Clock::now());
        const double tps = double(S) * steps / dt;
        if (S == 1) tps1 = tps;
        std::printf("decode_streams %d tok_per_s %.2f step_ms %.2f fastest_step_ms %.2f", S, tps, dt / steps * 1e3, fastest * 1e3);
        if (S == 1) std::printf(" weight_GBps %.2f fraction %.3f", tps * double(model->weights.bytes_per_token) / 1e9,
                                tps * double(model->weights.bytes_per_token) / bw);
        else if (tps1 > 0) std::printf(" ratio_vs_1 %.2f", tps / tps1);
        std::printf("\n");
    }
    if (prefill > 0) {
        double best = 1e30;
        for (int rep = 0; rep < 2; ++rep) {
            folio::ForwardBatch batch;
            folio::SeqSlice sl;
            sl.num_tokens = prefill;
            sl.num_blocks = blocks_per;
            sl.want_logits = true;
            for (int t = 0; t < prefill; ++t) batch.tokens.push_back(int32_t((t * 7919 + 13) % c.vocab_size));
            for (int b = 0; b < blocks_per; ++b) batch.block_tables.push_back(b);
            batch.seqs.push_back(sl);
            const auto t0 = Clock::now();
            backend->forward(batch, logits);
            best = std::min(best, secs(t0, Clock::now()));
        }
        std::printf("prefill_tokens %d tok_per_s %.1f\n", prefill, prefill / best);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    folio::cli::log_to_stderr();
    return folio::cli::run_program("cpu_decode_bench", kUsage, [&] { return run(argc, argv); });
}
