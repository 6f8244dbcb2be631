// engine_soak: a long run of the engine core (not a test: a script-style run that prints a table).
// Many requests of random lengths, some sharing prompt prefixes, some cancelled at random moments,
// through a KV pool small enough that the scheduler preempts; the pool's invariants are checked
// every few steps, every request must end, no KV block may be held at the end, and resident memory
// is sampled every second (the first and the last minute are reported).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/model/model.h"
#include "engine/runtime/engine_core.h"

namespace {

using namespace folio;
using Clock = std::chrono::steady_clock;

const char* kUsage =
    "usage: engine_soak [--model DIR|dummy:NAME] [--requests N] [--in-flight N] [--kv-blocks N]\n"
    "                   [--check-every STEPS] [--cancel-percent P] [--max-new N] [--seed S] [--threads N]\n"
    "\n"
    "Runs N requests (default 10000) of random prompt and output lengths through one engine core on\n"
    "the CPU: a fifth share one of four prompt prefixes, P% (default 10) are cancelled at a random step,\n"
    "the KV pool (default 64 blocks of 16 tokens) is small enough to preempt. Checks the KV invariants\n"
    "every STEPS steps (default 25) and that no block is held at the end; samples resident memory every\n"
    "second. Prints a table; exit status 1 when a check failed.\n";

int64_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    int64_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * int64_t(sysconf(_SC_PAGESIZE));
}

struct MemorySample {
    double t;     // seconds since the start
    int64_t rss;  // bytes
};

// Mean and largest resident size over [from, to) seconds.
std::pair<double, double> window_mib(const std::vector<MemorySample>& s, double from, double to) {
    double sum = 0, most = 0;
    int n = 0;
    for (const auto& m : s) {
        if (m.t < from || m.t >= to) continue;
        sum += double(m.rss);
        most = std::max(most, double(m.rss));
        ++n;
    }
    return {n ? sum / n / (1 << 20) : 0.0, most / (1 << 20)};
}

int run(int argc, char** argv) {
    const cli::Args args(argc, argv, 1, {"model", "requests", "in-flight", "kv-blocks", "check-every", "cancel-percent", "max-new", "seed", "threads"},
                         {});
    args.expect_no_positional();
    const std::string spec = args.get_or("model", std::string(FOLIO_FIXTURES_DIR) + "/models/stories260K");
    const int total = args.get_int("requests", 10000), in_flight = args.get_int("in-flight", 24);
    const int check_every = args.get_int("check-every", 25), cancel_percent = args.get_int("cancel-percent", 10);
    const int max_new = args.get_int("max-new", 160);
    if (total < 1 || in_flight < 1 || check_every < 1 || max_new < 1 || cancel_percent < 0 || cancel_percent > 100)
        throw cli::UsageError("--requests, --in-flight, --check-every and --max-new must be positive, --cancel-percent in [0, 100]");
    std::mt19937_64 rng(uint64_t(args.get_int("seed", 15)));

    const std::shared_ptr<const Model> model = load_model(spec);
    EngineOptions options;
    options.num_kv_blocks = args.get_int("kv-blocks", 64);
    options.max_num_seqs = in_flight;
    options.enable_prefix_caching = true;
    options.backend.num_threads = args.get_int("threads", 0);
    EngineCore core(model, make_cpu_backend(*model, backend_options_for(options)), options);
    const int context = model->context_length(), vocab = model->config.vocab_size;

    // Four shared prefixes of 16-96 tokens; token 0..2 are special in Llama vocabularies.
    std::vector<std::vector<int32_t>> prefixes(4);
    for (auto& p : prefixes) {
        p.resize(size_t(16 + rng() % 81));
        for (auto& t : p) t = int32_t(3 + rng() % uint64_t(vocab - 3));
    }
    auto make_request = [&] {
        std::vector<int32_t> prompt;
        if (rng() % 5 == 0) prompt = prefixes[rng() % prefixes.size()];
        const int suffix = 1 + int(rng() % 120);
        for (int i = 0; i < suffix; ++i) prompt.push_back(int32_t(3 + rng() % uint64_t(vocab - 3)));
        CoreRequest r;
        r.prompt_ids = std::move(prompt);
        r.eos_token_ids = model->stop_token_ids();
        r.max_tokens = 1 + int(rng() % uint64_t(std::min(max_new, context - int(r.prompt_ids.size()))));
        if (rng() % 2) {
            r.sampling.temperature = 0.0f;
        } else {
            r.sampling.temperature = 0.9f;
            r.sampling.seed = rng();
        }
        return r;
    };

    std::unordered_map<RequestId, int> cancel_at;  // request -> its step count when it is cancelled
    std::unordered_map<RequestId, int> age;
    std::map<std::string, int64_t> ended;
    int submitted = 0, finished = 0, checks = 0;
    int64_t tokens = 0;
    std::vector<MemorySample> memory;
    const auto t0 = Clock::now();
    auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    double next_sample = 0;
    std::string failure;
    try {
        while (finished < total) {
            while (submitted < total && int(age.size()) < in_flight) {
                const RequestId id = core.add(make_request());
                age[id] = 0;
                if (int(rng() % 100) < cancel_percent) cancel_at[id] = int(rng() % 60);
                ++submitted;
            }
            for (const CoreEvent& e : core.step()) {
                if (e.token >= 0) ++tokens;
                if (!e.finished) continue;
                ++finished;
                age.erase(e.id);
                cancel_at.erase(e.id);
                ++ended[e.reason == FinishReason::Error ? "error: " + e.message : finish_reason_name(e.reason)];
            }
            for (auto& [id, steps] : age) {
                auto c = cancel_at.find(id);
                if (c != cancel_at.end() && steps++ >= c->second) {
                    core.cancel(id);
                    cancel_at.erase(c);
                }
            }
            if (core.steps() % check_every == 0) {
                core.scheduler().kv().check_invariants();
                ++checks;
            }
            if (seconds() >= next_sample) {
                memory.push_back({seconds(), resident_bytes()});
                next_sample += 1.0;
            }
        }
        while (core.has_unfinished() || core.has_pending_events()) core.step();
        core.scheduler().kv().check_invariants();
        ++checks;
    } catch (const std::logic_error& e) {
        failure = std::string("KV invariant broken at step ") + std::to_string(core.steps()) + ": " + e.what();
    }
    memory.push_back({seconds(), resident_bytes()});
    const double duration = seconds();
    const EngineStats st = core.stats();
    const int64_t held = core.scheduler().kv().pool().num_used();
    if (failure.empty() && held != 0) failure = std::to_string(held) + " KV blocks still held after every request ended";
    if (failure.empty() && ended.size() > 0)
        for (const auto& [reason, n] : ended)
            if (reason.rfind("error", 0) == 0) failure = std::to_string(n) + " requests failed: " + reason;

    const auto first = window_mib(memory, 0, 60), last = window_mib(memory, std::max(0.0, duration - 60), duration + 1);
    std::printf("engine_soak: %s on %s, %d requests, %d in flight, %lld KV blocks of %d\n", model->name.c_str(),
                core.backend().device_name().c_str(), total, in_flight, (long long)core.num_kv_blocks(), options.block_size);
    std::printf("  %-28s %.1f s, %lld steps\n", "duration", duration, (long long)core.steps());
    std::printf("  %-28s %d\n", "requests ended", finished);
    for (const auto& [reason, n] : ended) std::printf("    %-26s %lld\n", reason.c_str(), (long long)n);
    std::printf("  %-28s %lld\n", "tokens generated", (long long)tokens);
    std::printf("  %-28s %lld\n", "preemptions", (long long)st.preemptions);
    std::printf("  %-28s %.1f%% (%lld of %lld prompt tokens)\n", "prefix cache hits", 100.0 * st.kv.prefix_hit_rate(),
                (long long)st.kv.prefix_hit_tokens, (long long)st.kv.prefix_lookup_tokens);
    std::printf("  %-28s %lld\n", "copy-on-write copies", (long long)st.kv.cow_copies);
    std::printf("  %-28s %d (every %d steps), %s\n", "KV invariant checks", checks, check_every, failure.empty() ? "all passed" : "FAILED");
    std::printf("  %-28s %lld (cached, free: %lld, %lld)\n", "KV blocks held at the end", (long long)held,
                (long long)st.kv.blocks_cached, (long long)st.kv.blocks_free);
    std::printf("  %-28s mean %.1f MiB, max %.1f MiB\n", "resident, first minute", first.first, first.second);
    std::printf("  %-28s mean %.1f MiB, max %.1f MiB\n", "resident, last minute", last.first, last.second);
    if (!failure.empty()) {
        std::fprintf(stderr, "engine_soak: %s\n", failure.c_str());
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) { return folio::cli::run_program("engine_soak", kUsage, [&] { return run(argc, argv); }); }
