// folio-tokenizer-bench: encoding speed of a tokenizer on a text, for tests/bench/tokenizer_bench.sh.
//   folio-tokenizer-bench --write-text FILE [--bytes N] [--seed S]    the benchmark's mixed text
//   folio-tokenizer-bench --model DIR --text FILE [--rounds N] [--ids-out FILE]
// Prints one JSON line: load seconds, the first encode (cold word cache) and the median of the later
// ones in MB/s of wall time and of this thread's CPU time (steadier on a shared machine), tokens.
// One thread; the whole text is one encode() call, as the Node reference is run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/bench/tokenizer/mixed_text.h"
#include "app/cli/cli_args.h"
#include "engine/core/error.h"
#include "engine/tokenizer/tokenizer_loader.h"

namespace {

double wall_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double cpu_now() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw folio::Error("cannot read " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

int run(int argc, char** argv) {
    const folio::cli::Args args(argc, argv, 1, {"write-text", "bytes", "seed", "model", "text", "rounds", "ids-out"}, {});
    if (args.has("write-text")) {
        const std::string text = folio::bench::mixed_text(size_t(args.get_int("bytes", 3 << 20)), uint64_t(args.get_int("seed", 1)));
        std::ofstream(*args.get("write-text"), std::ios::binary) << text;
        return 0;
    }
    const std::string text = read_all(args.require("text"));
    const int rounds = std::max(2, args.get_int("rounds", 5));
    const double l0 = wall_now();
    const auto tok = folio::load_tokenizer(args.require("model"));
    const double load = wall_now() - l0;
    std::vector<int> ids;
    std::vector<double> wall, cpu;
    for (int r = 0; r < rounds; ++r) {
        const double w0 = wall_now(), c0 = cpu_now();
        ids = tok->encode(text);
        cpu.push_back(cpu_now() - c0);
        wall.push_back(wall_now() - w0);
    }
    if (args.has("ids-out")) {
        std::ofstream out(*args.get("ids-out"));
        for (int id : ids) out << id << '\n';
    }
    const double mb = double(text.size()) / 1e6;
    const nlohmann::json j = {
        {"impl", "folio"}, {"bytes", text.size()}, {"tokens", ids.size()}, {"load_s", load},
        {"cold_mbps", mb / wall[0]}, {"warm_mbps", mb / median({wall.begin() + 1, wall.end()})},
        {"cold_cpu_mbps", mb / cpu[0]}, {"warm_cpu_mbps", mb / median({cpu.begin() + 1, cpu.end()})}};
    std::printf("%s\n", j.dump().c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "folio-tokenizer-bench: %s\n", e.what());
        return 1;
    }
}
