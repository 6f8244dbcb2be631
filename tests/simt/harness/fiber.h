#pragma once
// Cooperative fibers for the SIMT harness: one per emulated GPU thread. A fiber runs until it
// reaches a collective (__syncthreads, a warp shuffle, mma.sync, ...) and then switches back to the
// block scheduler, so the threads of a block interleave exactly at their synchronisation points.
// x86-64 uses a hand-written stack switch (a few nanoseconds: kernels hit collectives millions of
// times per test); other targets fall back to ucontext. AddressSanitizer is told about every switch.
#include <cstddef>
#include <cstdint>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace folio::simt {

// One mmap'd stack with a guard page below it, so an overflow faults instead of corrupting.
class FiberStack {
public:
    explicit FiberStack(size_t bytes);
    ~FiberStack();
    FiberStack(const FiberStack&) = delete;
    FiberStack& operator=(const FiberStack&) = delete;
    void* bottom() const { return bottom_; }  // lowest usable address
    size_t size() const { return size_; }

private:
    void* mapping_ = nullptr;
    size_t mapping_size_ = 0;
    void* bottom_ = nullptr;
    size_t size_ = 0;
};

// A saved execution context: the scheduler's own (main) context or a fiber's.
struct FiberContext {
#if defined(__x86_64__)
    void* sp = nullptr;
#else
    ucontext_t uc{};
#endif
    // For AddressSanitizer: the stack this context runs on, and its fake-stack handle.
    const void* stack_bottom = nullptr;
    size_t stack_size = 0;
    void* fake_stack = nullptr;
};

using FiberEntry = void (*)(void* arg);

// Prepares `ctx` to start `entry(arg)` on `stack` at its next switch_context. `entry` must never
// return: it ends by switching away for good.
void init_context(FiberContext& ctx, FiberStack& stack, FiberEntry entry, void* arg);

// Saves the running context into `from` and resumes `to`.
void switch_context(FiberContext& from, FiberContext& to);

// Called first thing in a fiber entry function (pairs with the switch that started it).
void fiber_started(FiberContext& scheduler);

// The last switch out of a fiber that will never run again.
[[noreturn]] void exit_to(FiberContext& self, FiberContext& to);

}  // namespace folio::simt
