#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#if defined(__SANITIZE_ADDRESS__)
#define FOLIO_SIMT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FOLIO_SIMT_ASAN 1
#endif
#endif

#if defined(FOLIO_SIMT_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__x86_64__)
// folio_simt_swap(void** save_sp, void* load_sp): pushes the callee-saved registers and the SSE/x87
// control words, stores the stack pointer, loads the other one and pops in reverse. A fresh stack is
// laid out by init_context so that the pops land in folio_simt_trampoline with r12 = arg, r13 = entry.
asm(R"(
    .text
    .globl folio_simt_swap
    .type folio_simt_swap,@function
folio_simt_swap:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size folio_simt_swap,.-folio_simt_swap

    .globl folio_simt_trampoline
    .type folio_simt_trampoline,@function
folio_simt_trampoline:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size folio_simt_trampoline,.-folio_simt_trampoline
    .section .note.GNU-stack,"",@progbits
    .text
)");
extern "C" void folio_simt_swap(void** save_sp, void* load_sp);
extern "C" void folio_simt_trampoline();
#endif

namespace folio::simt {

FiberStack::FiberStack(size_t bytes) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    size_ = (bytes + page - 1) / page * page;
    mapping_size_ = size_ + page;
    mapping_ = mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping_ == MAP_FAILED) throw std::runtime_error("SIMT harness: cannot map a fiber stack");
    mprotect(mapping_, page, PROT_NONE);  // guard page: a stack overflow faults
    bottom_ = static_cast<char*>(mapping_) + page;
}

FiberStack::~FiberStack() { munmap(mapping_, mapping_size_); }

void init_context(FiberContext& ctx, FiberStack& stack, FiberEntry entry, void* arg) {
    ctx.stack_bottom = stack.bottom();
    ctx.stack_size = stack.size();
    ctx.fake_stack = nullptr;
#if defined(FOLIO_SIMT_ASAN)
    // A fiber abandoned mid-kernel (after a harness error) may leave poisoned frames behind.
    ASAN_UNPOISON_MEMORY_REGION(stack.bottom(), stack.size());
#endif
#if defined(__x86_64__)
    auto top = reinterpret_cast<uintptr_t>(stack.bottom()) + stack.size();
    top &= ~uintptr_t(15);
    auto* s = reinterpret_cast<uint64_t*>(top - 16);  // rsp after `ret` into the trampoline: 16-aligned
    s[-1] = reinterpret_cast<uint64_t>(&folio_simt_trampoline);
    s[-2] = 0;                                   // rbp
    s[-3] = 0;                                   // rbx
    s[-4] = reinterpret_cast<uint64_t>(arg);     // r12
    s[-5] = reinterpret_cast<uint64_t>(entry);   // r13
    s[-6] = 0;                                   // r14
    s[-7] = 0;                                   // r15
    s[-8] = uint64_t(0x1F80) | (uint64_t(0x037F) << 32);  // default MXCSR, x87 control word
    ctx.sp = &s[-8];
#else
    getcontext(&ctx.uc);
    ctx.uc.uc_stack.ss_sp = stack.bottom();
    ctx.uc.uc_stack.ss_size = stack.size();
    ctx.uc.uc_link = nullptr;
    // makecontext passes int arguments: split the pointer in two.
    const auto p = reinterpret_cast<uintptr_t>(arg);
    static FiberEntry s_entry;  // single-threaded harness
    s_entry = entry;
    makecontext(&ctx.uc, reinterpret_cast<void (*)()>(+[](unsigned lo, unsigned hi) {
                    s_entry(reinterpret_cast<void*>((uintptr_t(hi) << 32) | lo));
                }),
                2, unsigned(p & 0xffffffffu), unsigned(p >> 32));
#endif
}

void switch_context(FiberContext& from, FiberContext& to) {
#if defined(FOLIO_SIMT_ASAN)
    __sanitizer_start_switch_fiber(&from.fake_stack, to.stack_bottom, to.stack_size);
#endif
#if defined(__x86_64__)
    folio_simt_swap(&from.sp, to.sp);
#else
    swapcontext(&from.uc, &to.uc);
#endif
#if defined(FOLIO_SIMT_ASAN)
    __sanitizer_finish_switch_fiber(from.fake_stack, nullptr, nullptr);
#endif
}

void fiber_started(FiberContext& scheduler) {
#if defined(FOLIO_SIMT_ASAN)
    // Learn the scheduler's stack the first time control arrives from it.
    const void* bottom = nullptr;
    size_t size = 0;
    __sanitizer_finish_switch_fiber(nullptr, &bottom, &size);
    scheduler.stack_bottom = bottom;
    scheduler.stack_size = size;
#else
    (void)scheduler;
#endif
}

void exit_to(FiberContext& self, FiberContext& to) {
#if defined(FOLIO_SIMT_ASAN)
    __sanitizer_start_switch_fiber(nullptr, to.stack_bottom, to.stack_size);
#endif
#if defined(__x86_64__)
    folio_simt_swap(&self.sp, to.sp);
#else
    swapcontext(&self.uc, &to.uc);
#endif
    std::abort();  // a finished fiber is never resumed
}

}  // namespace folio::simt
