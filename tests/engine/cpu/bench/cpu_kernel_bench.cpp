// A developer benchmark of the CPU backend's matmuls alone (not a test, not in ctest): every linear
// of a model for m rows, grouped as a decode step groups them, timed against the read bandwidth of
// folio-bench (the same sum-reduction, the same run), so that a kernel's efficiency can be told
// apart from the rest of a step.
// It also measures this machine's compute roofs (VPDPBUSD, VDPBF16PS, VFMADD231PS per second) and
// sets each group against the one its kernel runs on.
//   cpu_kernel_bench [MODEL=dummy:llama-0.8b-awq] [--m 1] [--reps 5] [--threads N] [--exact] [--ab]
// --ab: each group alternately in the exact mode (3 parts; dense weights on the fp32 kernel) and the int8
// mode (1 part; dense fp16 weights on the fp16 kernel where the CPU has it), `reps` pairs in one process,
// printing the median time of each and the median of the per-pair ratios: old path against new on a
// noisy machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <time.h>

#include "app/bench/memory_bandwidth.h"
#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "engine/core/thread_pool.h"
#include "engine/cpu/cpu_linear.h"
#include "engine/cpu/kernels.h"
#include "engine/model/dummy_model.h"
#include "engine/model/model.h"
#include "tests/engine/cpu/bench/compute_peak.h"

namespace {

using Clock = std::chrono::steady_clock;

// CPU time of the whole process (both pool threads): less disturbed than wall time when other jobs
// take the cores away for a while.
double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

uint64_t linear_bytes(const folio::Linear& l) {
    if (l.kind == folio::Linear::Kind::Dense) return uint64_t(l.in) * uint64_t(l.out) * folio::dtype_size(l.dense.dtype);
    // qweight + qzeros + scales, as the model counts them
    return uint64_t(l.in) * uint64_t(l.out) / 2 + uint64_t(l.in / l.awq.group_size) * uint64_t(l.out) * 5 / 2;
}

// 512-bit instructions the kernel issues per token: for AWQ (AVX-512 VNNI) two VPDPBUSD per part
// for every 64-byte row of 16 columns x 8 inputs; for dense weights one VFMADD231PS per 16 weights.
uint64_t linear_products(const folio::Linear& l, int parts) {
    if (l.kind == folio::Linear::Kind::Dense) return uint64_t(l.in) * uint64_t(l.out) / 16;
    return uint64_t(parts) * 2 * uint64_t(l.in / 8) * uint64_t((l.out + 15) / 16);
}

const char* kUsage =
    "usage: cpu_kernel_bench [MODEL] [--m 1] [--reps 5] [--threads N] [--exact] [--ab]\n"
    "\n"
    "Every linear of MODEL (default dummy:llama-0.8b-awq) for m rows, grouped as a decode step groups\n"
    "them, timed against this machine's read bandwidth and compute roofs (VPDPBUSD, VDPBF16PS,\n"
    "VFMADD231PS) in the same run.\n"
    "\n"
    "  --m N        rows (tokens) per matmul (default 1)\n"
    "  --reps N     repetitions, median reported (default 5)\n"
    "  --threads N  CPU threads (default: all)\n"
    "  --exact      the exact three-part mode instead of plain int8 activations (the default)\n"
    "  --ab         each group alternately in the exact and the int8 mode, N pairs in one process: medians\n"
    "               of the times and of the per-pair ratios (old dense path against new)\n";

int run(int argc, char** argv) {
    const folio::cli::Args args(argc, argv, 1, {"m", "reps", "threads"}, {"exact", "ab"});
    if (args.positional().size() > 1) throw folio::cli::UsageError("one MODEL at most, got '" + args.positional()[1] + "' too");
    const std::string spec = args.positional().empty() ? "dummy:llama-0.8b-awq" : args.positional()[0];
    const int m = args.get_int("m", 1), reps = args.get_int("reps", 5), threads = args.get_int("threads", 0);
    const int parts = args.has("exact") ? 3 : 1;
    const bool ab = args.has("ab");
    if (m < 1 || reps < 1 || threads < 0) throw folio::cli::UsageError("--m and --reps must be positive, --threads at least 0");
    auto model = folio::load_model(spec);
    folio::ThreadPool pool(threads);
    const auto& c = model->config;
    struct Group {
        const char* name;
        std::vector<folio::cpu::PreparedLinear> w;
        std::vector<std::vector<float>> y;
        uint64_t bytes = 0;
        uint64_t products = 0;  // per token
    };
    std::vector<Group> groups = {{"qkv", {}, {}}, {"o", {}, {}}, {"gate_up", {}, {}}, {"down", {}, {}}, {"lm_head", {}, {}}};
    // One group per kind, over all layers: [layer * per_layer + j]; packed as the backend packs them.
    std::vector<const folio::Linear*> order;
    for (const auto& L : model->weights.layers)
        for (const auto* l : {&L.q_proj, &L.k_proj, &L.v_proj, &L.o_proj, &L.gate_proj, &L.up_proj, &L.down_proj}) order.push_back(l);
    order.push_back(&model->weights.lm_head);
    auto prepared = folio::cpu::prepare_linears(order);
    const int kind_of[7] = {0, 0, 0, 1, 2, 2, 3};
    for (size_t i = 0; i + 1 < order.size(); ++i) {
        Group& g = groups[size_t(kind_of[i % 7])];
        g.w.push_back(std::move(prepared[i]));
        g.bytes += linear_bytes(*order[i]);
        g.products += linear_products(*order[i], parts);
    }
    groups[4].w.push_back(std::move(prepared.back()));
    groups[4].bytes = linear_bytes(model->weights.lm_head);
    groups[4].products = linear_products(model->weights.lm_head, parts);
    for (auto& g : groups)
        for (const auto& w : g.w) g.y.emplace_back(size_t(m) * size_t(w.out));
    std::vector<float> x(size_t(m) * size_t(std::max(c.hidden_size, c.intermediate_size)));
    for (size_t i = 0; i < x.size(); ++i) x[i] = float((i * 7919) % 201) / 100.0f - 1.0f;
    folio::cpu::QuantizedActs acts;
    const size_t per_layer[] = {3, 1, 2, 1, 1};
    auto run_group_parts = [&](Group& g, size_t gi, int parts) {
        const size_t n = per_layer[gi];
        for (size_t i = 0; i < g.w.size(); i += n) {
            if (n == 3)
                folio::cpu::run_linears({{&g.w[i], g.y[i].data()}, {&g.w[i + 1], g.y[i + 1].data()}, {&g.w[i + 2], g.y[i + 2].data()}}, x.data(), m,
                                        parts, acts, pool);
            else if (n == 2)
                folio::cpu::run_linears({{&g.w[i], g.y[i].data()}, {&g.w[i + 1], g.y[i + 1].data()}}, x.data(), m, parts, acts, pool);
            else
                folio::cpu::run_linears({{&g.w[i], g.y[i].data()}}, x.data(), m, parts, acts, pool);
        }
    };
    auto run_group = [&](Group& g, size_t gi) { run_group_parts(g, gi, parts); };
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
    };
    if (ab) {
        for (auto& g : groups) run_group(g, size_t(&g - groups.data()));  // warm-up: first touches
        std::printf("%s on %d threads, m = %d: exact (3 parts) vs int8 (1 part), %d alternating pairs; 16-bit dense kernel: %s\n", spec.c_str(),
                    pool.size(), m, reps, folio::cpu::dense_half_kernels() ? folio::cpu::dense_half_kernels()->isa : "none");
        std::printf("  %-8s %14s %14s %24s %24s\n", "group", "exact ms (med)", "int8 ms (med)", "exact/int8 wall (range)",
                    "exact/int8 CPU time");
        std::vector<double> te_all(static_cast<size_t>(reps), 0.0), ti_all(static_cast<size_t>(reps), 0.0);
        for (size_t gi = 0; gi < groups.size(); ++gi) {
            std::vector<double> te, ti, ratio, cratio;
            for (int r = 0; r < reps; ++r) {
                double t[2], c[2];
                for (int k = 0; k < 2; ++k) {
                    const int p = (r % 2 == 0) == (k == 0) ? 3 : 1;  // alternate which goes first
                    const double c0 = cpu_seconds();
                    const auto t0 = Clock::now();
                    run_group_parts(groups[gi], gi, p);
                    t[p == 3 ? 0 : 1] = std::chrono::duration<double>(Clock::now() - t0).count();
                    c[p == 3 ? 0 : 1] = cpu_seconds() - c0;
                }
                te.push_back(t[0]);
                ti.push_back(t[1]);
                ratio.push_back(t[0] / t[1]);
                cratio.push_back(c[0] / c[1]);
                te_all[size_t(r)] += t[0];
                ti_all[size_t(r)] += t[1];
            }
            std::printf("  %-8s %14.1f %14.1f %10.2fx (%.2f-%.2f) %10.2fx (%.2f-%.2f)\n", groups[gi].name, median(te) * 1e3, median(ti) * 1e3,
                        median(ratio), *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()),
                        median(cratio), *std::min_element(cratio.begin(), cratio.end()), *std::max_element(cratio.begin(), cratio.end()));
        }
        std::vector<double> ratio;
        for (int r = 0; r < reps; ++r) ratio.push_back(te_all[size_t(r)] / ti_all[size_t(r)]);
        std::printf("  %-8s %14.1f %14.1f %10.2fx (%.2f-%.2f)\n", "all", median(te_all) * 1e3, median(ti_all) * 1e3, median(ratio),
                    *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()));
        return 0;
    }
    // Each timing is paired with a bandwidth measurement right before it; the figures are medians
    // of those ratios, which hold while the machine's speed drifts (other jobs, frequency).
    folio::bench::MemoryBandwidth bw(size_t(1) << 30, pool);
    for (auto& g : groups) run_group(g, size_t(&g - groups.data()));  // warm-up: first touches
    std::vector<double> read;
    std::vector<std::vector<double>> frac(groups.size() + 1), secs(groups.size() + 1);
    for (int r = 0; r < reps; ++r) {
        double total = 0;
        uint64_t all = 0;
        for (size_t gi = 0; gi < groups.size(); ++gi) {
            const double rb = bw.read_gbps();
            read.push_back(rb);
            const auto t0 = Clock::now();
            run_group(groups[gi], gi);
            const double s = std::chrono::duration<double>(Clock::now() - t0).count();
            secs[gi].push_back(s);
            frac[gi].push_back(groups[gi].bytes / s / 1e9 / rb);
            total += s;
            all += groups[gi].bytes;
        }
        secs.back().push_back(total);
        frac.back().push_back(all / total / 1e9 / median(std::vector<double>(read.end() - long(groups.size()), read.end())));
    }
    const std::string isa = folio::cpu::kernels().isa;
    std::printf("%s on %d threads (%s), m = %d, %d parts; read bandwidth %.2f GB/s (median of %zu, min %.2f, max %.2f)\n", spec.c_str(),
                pool.size(), isa.c_str(), m, parts, median(read), read.size(), *std::min_element(read.begin(), read.end()),
                *std::max_element(read.begin(), read.end()));
    // The roofs: VNNI where the AWQ kernel runs on it (everywhere on AVX-512, below the AMX path's
    // batch size on AMX), FMA for the dense kernels; BF16 for reference (what a bf16 kernel could do).
    using folio::bench::PeakOp;
    double peaks[3] = {};
    if (isa == "avx512" || isa == "amx") {
        for (PeakOp op : {PeakOp::Vpdpbusd, PeakOp::Vdpbf16ps, PeakOp::Vfmadd231ps}) {
            const double p = folio::bench::peak_per_second(op, pool);
            peaks[int(op)] = p;
            if (p > 0)
                std::printf("%-11s peak %6.2f G/s on %d threads = %7.1f G products/s (24 independent 512-bit accumulators)\n",
                            folio::bench::peak_op_name(op), p / 1e9, pool.size(), p * folio::bench::peak_op_products(op) / 1e9);
        }
    }
    const bool vnni_roof = isa == "avx512" || (isa == "amx" && m < 8);
    std::printf("  %-8s %8s %10s %9s %-37s %s\n", "group", "MB", "ms (med)", "GB/s", "of read bw (median of paired ratios)",
                peaks[2] > 0 ? "of its kernel's peak (VNNI or FMA)" : "");
    uint64_t all = 0;
    for (size_t gi = 0; gi <= groups.size(); ++gi) {
        const bool total = gi == groups.size();
        const uint64_t bytes = total ? all : groups[gi].bytes;
        // (the total mixes in the dense lm_head, which VNNI does not run)
        const uint64_t products = total ? 0 : groups[gi].products;
        all += total ? 0 : groups[gi].bytes;
        const double s = median(secs[gi]);
        std::printf("  %-8s %8.1f %10.3f %9.2f %6.1f%%", total ? "all" : groups[gi].name, bytes / 1e6, s * 1e3, bytes / s / 1e9, 100.0 * median(frac[gi]));
        const bool dense = !total && groups[gi].w[0].kind == folio::Linear::Kind::Dense;
        const double peak = dense ? peaks[int(PeakOp::Vfmadd231ps)] : vnni_roof ? peaks[int(PeakOp::Vpdpbusd)] : 0.0;
        if (peak > 0 && products > 0) std::printf("%38s%5.1f%% %s", "", 100.0 * double(products) * m / s / peak, dense ? "FMA" : "VNNI");
        std::printf("\n");
    }
    if (FILE* f = std::fopen("/proc/self/smaps_rollup", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f))
            if (std::string(line).rfind("AnonHugePages", 0) == 0) std::printf("  %s", line);
        std::fclose(f);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return folio::cli::run_program("cpu_kernel_bench", kUsage, [&] { return run(argc, argv); });
}
