#include "tests/engine/cpu/bench/vnni_peak.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "engine/core/thread_pool.h"

namespace folio::bench {
namespace {

constexpr int kPerIteration = 12;

// Written in assembly so that the loop is exactly the products (a compiler may keep intrinsics'
// accumulators anywhere, see kernels_awq.inc).
__attribute__((target("avx512f,avx512vnni"))) void products(int64_t iterations) {
    __asm__ volatile(
        "1:\n"
        "vpdpbusd %%zmm0, %%zmm1, %%zmm2\n vpdpbusd %%zmm0, %%zmm1, %%zmm3\n vpdpbusd %%zmm0, %%zmm1, %%zmm4\n"
        "vpdpbusd %%zmm0, %%zmm1, %%zmm5\n vpdpbusd %%zmm0, %%zmm1, %%zmm6\n vpdpbusd %%zmm0, %%zmm1, %%zmm7\n"
        "vpdpbusd %%zmm0, %%zmm1, %%zmm8\n vpdpbusd %%zmm0, %%zmm1, %%zmm9\n vpdpbusd %%zmm0, %%zmm1, %%zmm10\n"
        "vpdpbusd %%zmm0, %%zmm1, %%zmm11\n vpdpbusd %%zmm0, %%zmm1, %%zmm12\n vpdpbusd %%zmm0, %%zmm1, %%zmm13\n"
        "dec %0\n"
        "jnz 1b\n"
        : "+r"(iterations)
        :
        : "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "cc");
}

}  // namespace

double vnni_peak_per_second(ThreadPool& pool) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vnni")) return 0;
    // Many small tasks, so that a thread that starts late does not leave one long task to the end.
    const int64_t tasks = int64_t(pool.size()) * 32, iterations = 400'000;
    double best = 0;
    for (int round = 0; round < 3; ++round) {
        const auto t0 = std::chrono::steady_clock::now();
        pool.run(tasks, [&](int64_t) { products(iterations); });
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::max(best, double(tasks * iterations * kPerIteration) / s);
    }
    return best;
}

}  // namespace folio::bench
