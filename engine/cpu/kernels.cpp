#include "engine/cpu/kernels.h"

#include <cstring>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace folio::cpu {

namespace generic { extern const KernelTable table; }
namespace avx2 { extern const KernelTable table; }
namespace avx512 { extern const KernelTable table; }
namespace amx { extern const KernelTable table; }

namespace {
// Linux hands out AMX tile state only on request (once per process).
bool amx_permitted() {
    static const bool ok = [] {
#if defined(__x86_64__) && defined(__linux__)
        constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
        return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
        return false;
#endif
    }();
    return ok;
}
}  // namespace

const KernelTable* kernels_for(const char* isa) {
    if (!std::strcmp(isa, "generic")) return &generic::table;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!std::strcmp(isa, "avx2") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("f16c"))
        return &avx2::table;
    if (!std::strcmp(isa, "avx512") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni"))
        return &avx512::table;
    if (!std::strcmp(isa, "amx") && kernels_for("avx512") && __builtin_cpu_supports("amx-tile") &&
        __builtin_cpu_supports("amx-int8") && amx_permitted())
        return &amx::table;
#endif
    return nullptr;
}

const KernelTable& kernels() {
    static const KernelTable* best = [] {
        for (const char* isa : {"amx", "avx512", "avx2"})
            if (const KernelTable* t = kernels_for(isa)) return t;
        return &generic::table;
    }();
    return *best;
}

}  // namespace folio::cpu
