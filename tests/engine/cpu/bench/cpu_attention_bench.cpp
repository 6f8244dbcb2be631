// A developer benchmark of the CPU attention kernel alone (not a test, not in ctest): one decode
// step's attention as a model of the given shape runs it (each KV head's GQA query rows together,
// layer by layer, one thread), with the KV cache evicted between steps as a step's weights evict it.
// Prints the time per step and the KV bytes read per second, for each context length.
//   cpu_attention_bench [--layers 16] [--kv-heads 4] [--gqa 4] [--head-dim 128] [--keys 64,300,1000] [--reps 30]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "engine/cpu/kernels.h"
#include "engine/kv/kv_layout.h"

namespace {

const char* kUsage =
    "usage: cpu_attention_bench [--layers 16] [--kv-heads 4] [--gqa 4] [--head-dim 128] [--keys 64,300,1000] [--reps 30]\n"
    "\n"
    "One decode step's attention (fp32 KV cache, blocks of 16 in a shuffled block table), layer by layer on\n"
    "one thread, the cache evicted between steps; median and best time per step, and KV bytes read per second.\n";

int run(int argc, char** argv) {
    using namespace folio;
    const cli::Args args(argc, argv, 1, {"layers", "kv-heads", "gqa", "head-dim", "keys", "reps"}, {});
    if (!args.positional().empty()) throw cli::UsageError("no positional arguments, got '" + args.positional()[0] + "'");
    const int layers = args.get_int("layers", 16), kvh = args.get_int("kv-heads", 4), gqa = args.get_int("gqa", 4);
    const int hd = args.get_int("head-dim", 128), reps = args.get_int("reps", 30);
    if (layers < 1 || kvh < 1 || gqa < 1 || gqa > cpu::kMaxAttnRows || hd < 16 || hd % 16 != 0 || reps < 1)
        throw cli::UsageError("--layers, --kv-heads, --reps must be positive, --gqa 1.." + std::to_string(cpu::kMaxAttnRows) +
                              ", --head-dim a multiple of 16");
    std::vector<int> key_counts;
    {
        std::stringstream list(args.get_or("keys", "64,300,1000"));
        for (std::string item; std::getline(list, item, ',');) {
            try {
                key_counts.push_back(std::stoi(item));
            } catch (const std::exception&) {
                throw cli::UsageError("--keys takes a comma-separated list of numbers, got '" + item + "'");
            }
        }
    }

    const cpu::KernelTable& k = cpu::kernels();
    std::printf("attention, one thread (%s kernels): %d layers x %d KV heads x %d query rows, head_dim %d\n", k.isa, layers, kvh,
                gqa, hd);
    std::printf("  %8s %12s %12s %14s\n", "keys", "median ms", "best ms", "KV GB/s (med)");
    std::mt19937 rng(1);
    std::normal_distribution<float> nd;
    std::vector<char> evict(size_t(64) << 20, 1);
    for (const int keys : key_counts) {
        if (keys < 1) throw cli::UsageError("--keys must be positive");
        const int bs = 16, nblocks = (keys + bs - 1) / bs;
        const KvLayout layout{1, kvh, hd, bs, nblocks};
        std::vector<std::vector<float>> kp(static_cast<size_t>(layers)), vp(static_cast<size_t>(layers));
        for (int l = 0; l < layers; ++l) {
            kp[size_t(l)].resize(size_t(nblocks * layout.block_elems()));
            vp[size_t(l)].resize(kp[size_t(l)].size());
            for (auto& x : kp[size_t(l)]) x = nd(rng);
            for (auto& x : vp[size_t(l)]) x = nd(rng);
        }
        std::vector<int32_t> table(static_cast<size_t>(nblocks));
        for (int i = 0; i < nblocks; ++i) table[size_t(i)] = i;
        std::shuffle(table.begin(), table.end(), rng);  // a pool's blocks are scattered
        std::vector<float> q(size_t(gqa) * hd), o(q.size()), scores(size_t(gqa) * size_t(keys));
        for (auto& x : q) x = nd(rng) * 0.1f;
        std::vector<const float*> qp;
        std::vector<float*> op;
        for (int r = 0; r < gqa; ++r) {
            qp.push_back(q.data() + size_t(r) * hd);
            op.push_back(o.data() + size_t(r) * hd);
        }
        const std::vector<int> first(size_t(gqa), 0), num_keys(size_t(gqa), keys);
        std::vector<double> times;
        volatile long sink = 0;
        for (int rep = 0; rep < reps; ++rep) {
            long s = 0;
            for (size_t i = 0; i < evict.size(); i += 64) s += evict[i];
            sink = sink + s;
            const auto t0 = std::chrono::steady_clock::now();
            for (int l = 0; l < layers; ++l)
                for (int h = 0; h < kvh; ++h)
                    k.attention_rows(qp.data(), op.data(), first.data(), num_keys.data(), gqa, h, layout, kp[size_t(l)].data(),
                                     vp[size_t(l)].data(), table.data(), 0.088f, scores.data());
            times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(times.begin(), times.end());
        const double med = times[times.size() / 2];
        const double bytes = 2.0 * layers * kvh * double(keys) * hd * sizeof(float);
        std::printf("  %8d %12.3f %12.3f %14.2f\n", keys, med * 1e3, times.front() * 1e3, bytes / med * 1e-9);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return folio::cli::run_program("cpu_attention_bench", kUsage, [&] { return run(argc, argv); });
}
