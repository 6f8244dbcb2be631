#include "engine/cpu/kernels.h"

#include <cstring>

namespace folio::cpu {

namespace generic { extern const KernelTable table; }
namespace avx2 { extern const KernelTable table; }
namespace avx512 { extern const KernelTable table; }

const KernelTable* kernels_for(const char* isa) {
    if (!std::strcmp(isa, "generic")) return &generic::table;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!std::strcmp(isa, "avx2") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("f16c"))
        return &avx2::table;
    if (!std::strcmp(isa, "avx512") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl"))
        return &avx512::table;
#endif
    return nullptr;
}

const KernelTable& kernels() {
    static const KernelTable* best = [] {
        for (const char* isa : {"avx512", "avx2"})
            if (const KernelTable* t = kernels_for(isa)) return t;
        return &generic::table;
    }();
    return *best;
}

}  // namespace folio::cpu
