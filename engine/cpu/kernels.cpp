#include "engine/cpu/kernels.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "engine/core/error.h"

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace folio::cpu {

namespace generic { extern const KernelTable table; }
namespace avx2 { extern const KernelTable table; }
namespace avx512 { extern const KernelTable table; }
namespace amx { extern const KernelTable table; }
namespace avx512fp16 { extern const DenseHalfTable table; }
namespace avx512bf16 { extern const DenseHalfTable table; }

namespace {

constexpr const char* kIsaNames[] = {"amx", "avx512", "avx2", "generic"};  // fastest first

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

std::string supported_list() {
    std::string s;
    for (const char* isa : kIsaNames)
        if (kernels_for(isa)) s += std::string(s.empty() ? "" : ", ") + isa;
    return s;
}

}  // namespace

const KernelTable& choose_kernels(const char* forced) {
    if (forced && *forced && std::strcmp(forced, "auto") != 0) {
        bool known = false;
        for (const char* isa : kIsaNames) known = known || !std::strcmp(isa, forced);
        if (!known)
            throw Error(std::string("FOLIO_CPU_ISA=") + forced + " is not an instruction set the CPU backend knows; use auto, amx, avx512, avx2 or generic");
        if (const KernelTable* t = kernels_for(forced)) return *t;
        throw Error(std::string("FOLIO_CPU_ISA=") + forced + ": this CPU lacks those instructions (it supports " + supported_list() +
                    "); unset FOLIO_CPU_ISA or pick one of those");
    }
    for (const char* isa : kIsaNames)
        if (const KernelTable* t = kernels_for(isa)) return *t;
    return generic::table;
}

const KernelTable* kernels_for(const char* isa) {
    if (!std::strcmp(isa, "generic")) return &generic::table;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!std::strcmp(isa, "avx2") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("f16c"))
        return &avx2::table;
    if (!std::strcmp(isa, "avx512") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vnni") &&
        __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c"))
        return &avx512::table;
    if (!std::strcmp(isa, "amx") && kernels_for("avx512") && __builtin_cpu_supports("amx-tile") &&
        __builtin_cpu_supports("amx-int8") && amx_permitted())
        return &amx::table;
#endif
    return nullptr;
}

const KernelTable& kernels() {
    static const KernelTable& chosen = choose_kernels(std::getenv("FOLIO_CPU_ISA"));
    return chosen;
}

const DenseHalfTable* dense_half_kernels_named(const char* isa) {
#if defined(__x86_64__)
    if (!kernels_for("avx512")) return nullptr;
    __builtin_cpu_init();
    if (!std::strcmp(isa, "avx512fp16") && __builtin_cpu_supports("avx512fp16")) return &avx512fp16::table;
    if (!std::strcmp(isa, "avx512bf16") && __builtin_cpu_supports("avx512bf16")) return &avx512bf16::table;
#else
    (void)isa;
#endif
    return nullptr;
}

// fp16 first: where both exist (Sapphire Rapids), VDPBF16PS issues at a quarter of the FMA's rate and
// VFMADD231PH at its full rate with twice the products; where only AVX512-BF16 exists (Zen 4),
// VDPBF16PS issues at the FMA's rate with twice its products (cpu_kernel_bench measures both roofs).
const DenseHalfTable* dense_half_kernels_for(const KernelTable& base) {
    if (&base != &avx512::table && &base != &amx::table) return nullptr;
    if (const DenseHalfTable* t = dense_half_kernels_named("avx512fp16")) return t;
    return dense_half_kernels_named("avx512bf16");
}

const DenseHalfTable* dense_half_kernels() {
    static const DenseHalfTable* chosen = dense_half_kernels_for(kernels());
    return chosen;
}

void* kernel_scratch(ScratchSlot slot, size_t bytes) {
    struct Buffer {
        std::unique_ptr<unsigned char[]> data;
        size_t size = 0;
    };
    thread_local Buffer buffers[size_t(ScratchSlot::Count)];
    Buffer& b = buffers[size_t(slot)];
    if (b.size < bytes + 64) {
        b.size = (bytes + 64) * 5 / 4;
        b.data.reset(new unsigned char[b.size]);
    }
    return reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(b.data.get()) + 63) & ~uintptr_t(63));
}

}  // namespace folio::cpu
