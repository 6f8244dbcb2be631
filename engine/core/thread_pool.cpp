#include "engine/core/thread_pool.h"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FOLIO_PAUSE() _mm_pause()
#else
#define FOLIO_PAUSE() std::this_thread::yield()
#endif

namespace folio {

namespace {
// Workers spin this long after a job before sleeping: a decode step issues hundreds of short jobs,
// and a condition-variable wake-up per job would cost more than the jobs themselves.
constexpr auto kSpinFor = std::chrono::microseconds(2000);

// Waits for `done()`: pause-spins first (a job's tail is microseconds), then yields the core, so a
// thread that waits on a preempted one (more threads than cores, or a busy machine) hands it the CPU
// instead of burning the time slice it needs.
template <class Pred>
inline void wait_until(Pred&& done) {
    for (int spins = 0; !done(); ++spins) {
        if (spins < 2048) FOLIO_PAUSE();
        else std::this_thread::yield();
    }
}
}  // namespace

ThreadPool::ThreadPool(int num_threads) {
    if (num_threads <= 0) num_threads = int(std::thread::hardware_concurrency());
    if (num_threads <= 0) num_threads = 1;
    workers_.reserve(size_t(num_threads - 1));
    // Workers start from generation 0 whenever they get to run: a pool that dispatches, or is
    // destroyed, before a worker first runs must not leave that worker waiting for a later generation.
    for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { worker_loop(0); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::work_on_current_job() {
    // Fields are stable here: dispatch() rewrites them only while no worker is active.
    for (;;) {
        const int64_t t = next_task_.fetch_add(1, std::memory_order_acq_rel);
        if (t >= num_tasks_) break;
        fn_(ctx_, t);
        tasks_done_.fetch_add(1, std::memory_order_acq_rel);
    }
}

void ThreadPool::dispatch(int64_t num_tasks, TaskFn fn, void* ctx) {
    for (;;) {
        wait_until([&] { return active_workers_.load(std::memory_order_acquire) == 0; });
        std::unique_lock lock(mutex_);
        // A worker joins a job only under the mutex, so this check cannot race with one joining.
        if (active_workers_.load(std::memory_order_acquire) != 0) continue;
        num_tasks_ = num_tasks;
        fn_ = fn;
        ctx_ = ctx;
        next_task_.store(0, std::memory_order_relaxed);
        tasks_done_.store(0, std::memory_order_relaxed);
        generation_.fetch_add(1, std::memory_order_release);
        break;
    }
    wake_.notify_all();
    active_workers_.fetch_add(1, std::memory_order_acq_rel);
    work_on_current_job();
    active_workers_.fetch_sub(1, std::memory_order_acq_rel);
    wait_until([&] { return tasks_done_.load(std::memory_order_acquire) >= num_tasks; });
}

void ThreadPool::worker_loop(uint64_t seen) {
    for (;;) {
        const auto spin_until = std::chrono::steady_clock::now() + kSpinFor;
        int spins = 0;
        while (generation_.load(std::memory_order_acquire) == seen) {
            if (++spins < 2048) FOLIO_PAUSE();
            else std::this_thread::yield();
            if (spins % 256 == 0 && std::chrono::steady_clock::now() > spin_until) {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
            }
        }
        {
            std::lock_guard lock(mutex_);
            seen = generation_.load(std::memory_order_acquire);
            if (stop_) return;
            active_workers_.fetch_add(1, std::memory_order_acq_rel);
        }
        work_on_current_job();
        active_workers_.fetch_sub(1, std::memory_order_acq_rel);
    }
}

}  // namespace folio
