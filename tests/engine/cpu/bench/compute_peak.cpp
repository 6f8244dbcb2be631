#include "tests/engine/cpu/bench/compute_peak.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "engine/core/thread_pool.h"

namespace folio::bench {
namespace {

constexpr int kPerIteration = 24;

// Written in assembly so that the loop is exactly the instructions (a compiler may keep intrinsics'
// accumulators anywhere, see kernels_awq.inc). The operands hold 1.0f (a normal number in every
// format read), so no denormal assist slows the floating-point ones.
#define FOLIO_PEAK_I(ins, n) ins " %%zmm30, %%zmm31, %%zmm" #n "\n"
#define FOLIO_PEAK_LOOP(ins)                                                                                      \
    FOLIO_PEAK_I(ins, 0) FOLIO_PEAK_I(ins, 1) FOLIO_PEAK_I(ins, 2) FOLIO_PEAK_I(ins, 3) FOLIO_PEAK_I(ins, 4)      \
    FOLIO_PEAK_I(ins, 5) FOLIO_PEAK_I(ins, 6) FOLIO_PEAK_I(ins, 7) FOLIO_PEAK_I(ins, 8) FOLIO_PEAK_I(ins, 9)      \
    FOLIO_PEAK_I(ins, 10) FOLIO_PEAK_I(ins, 11) FOLIO_PEAK_I(ins, 12) FOLIO_PEAK_I(ins, 13) FOLIO_PEAK_I(ins, 14) \
    FOLIO_PEAK_I(ins, 15) FOLIO_PEAK_I(ins, 16) FOLIO_PEAK_I(ins, 17) FOLIO_PEAK_I(ins, 18) FOLIO_PEAK_I(ins, 19) \
    FOLIO_PEAK_I(ins, 20) FOLIO_PEAK_I(ins, 21) FOLIO_PEAK_I(ins, 22) FOLIO_PEAK_I(ins, 23)
#define FOLIO_PEAK_BODY(ins)                                                                                        \
    __asm__ volatile("vbroadcastss %1, %%zmm30\n vbroadcastss %1, %%zmm31\n"                                        \
                     "1:\n" FOLIO_PEAK_LOOP(ins) "dec %0\n jnz 1b\n"                                                \
                     : "+r"(iterations)                                                                             \
                     : "m"(one)                                                                                     \
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",      \
                       "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",    \
                       "xmm21", "xmm22", "xmm23", "xmm30", "xmm31", "cc")

const float one = 1.0f;

__attribute__((target("avx512f,avx512vnni"))) void vpdpbusd_loop(int64_t iterations) { FOLIO_PEAK_BODY("vpdpbusd"); }
__attribute__((target("avx512f,avx512bf16"))) void vdpbf16ps_loop(int64_t iterations) { FOLIO_PEAK_BODY("vdpbf16ps"); }
__attribute__((target("avx512f"))) void vfmadd_loop(int64_t iterations) { FOLIO_PEAK_BODY("vfmadd231ps"); }

}  // namespace

const char* peak_op_name(PeakOp op) {
    switch (op) {
        case PeakOp::Vpdpbusd: return "VPDPBUSD";
        case PeakOp::Vdpbf16ps: return "VDPBF16PS";
        case PeakOp::Vfmadd231ps: return "VFMADD231PS";
    }
    return "?";
}

int peak_op_products(PeakOp op) { return op == PeakOp::Vpdpbusd ? 64 : op == PeakOp::Vdpbf16ps ? 32 : 16; }

double peak_per_second(PeakOp op, ThreadPool& pool) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f")) return 0;
    void (*loop)(int64_t) = vfmadd_loop;
    if (op == PeakOp::Vpdpbusd) {
        if (!__builtin_cpu_supports("avx512vnni")) return 0;
        loop = vpdpbusd_loop;
    } else if (op == PeakOp::Vdpbf16ps) {
        if (!__builtin_cpu_supports("avx512bf16")) return 0;
        loop = vdpbf16ps_loop;
    }
    // Many small tasks, so that a thread that starts late does not leave one long task to the end.
    const int64_t tasks = int64_t(pool.size()) * 32, iterations = 200'000;
    double best = 0;
    for (int round = 0; round < 3; ++round) {
        const auto t0 = std::chrono::steady_clock::now();
        pool.run(tasks, [&](int64_t) { loop(iterations); });
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::max(best, double(tasks * iterations * kPerIteration) / s);
    }
    return best;
}

}  // namespace folio::bench
