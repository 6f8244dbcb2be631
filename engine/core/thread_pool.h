#pragma once
// A persistent pool of worker threads for the CPU backend: no thread is created per step. Work is
// handed out as task indices; which thread runs a task never changes what the task computes, so
// results stay deterministic.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace folio {

class ThreadPool {
public:
    // num_threads <= 0: one thread per hardware thread. The calling thread counts as one of them.
    explicit ThreadPool(int num_threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return int(workers_.size()) + 1; }

    // Calls fn(task) for every task in [0, num_tasks), spread over the pool; returns when all are done.
    // Not re-entrant: a task may not call run() on the same pool.
    template <class Fn>
    void run(int64_t num_tasks, Fn&& fn) {
        if (num_tasks <= 0) return;
        if (num_tasks == 1 || workers_.empty()) {
            for (int64_t t = 0; t < num_tasks; ++t) fn(t);
            return;
        }
        auto trampoline = [](void* ctx, int64_t t) { (*static_cast<Fn*>(ctx))(t); };
        dispatch(num_tasks, trampoline, &fn);
    }

    // Splits [0, n) into contiguous chunks of at least `grain` items and calls fn(begin, end) for each.
    template <class Fn>
    void parallel_for(int64_t n, int64_t grain, Fn&& fn) {
        if (n <= 0) return;
        if (grain < 1) grain = 1;
        int64_t chunks = (n + grain - 1) / grain;
        const int64_t max_chunks = int64_t(size()) * 4;
        if (chunks > max_chunks) chunks = max_chunks;
        const int64_t per = (n + chunks - 1) / chunks;
        chunks = (n + per - 1) / per;
        run(chunks, [&](int64_t c) {
            const int64_t b = c * per;
            const int64_t e = b + per < n ? b + per : n;
            fn(b, e);
        });
    }

private:
    using TaskFn = void (*)(void*, int64_t);
    void dispatch(int64_t num_tasks, TaskFn fn, void* ctx);
    void worker_loop(uint64_t seen);
    void work_on_current_job();

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::atomic<uint64_t> generation_{0};
    std::atomic<int64_t> next_task_{0};
    std::atomic<int64_t> tasks_done_{0};
    std::atomic<int> active_workers_{0};
    int64_t num_tasks_ = 0;
    TaskFn fn_ = nullptr;
    void* ctx_ = nullptr;
    bool stop_ = false;
};

}  // namespace folio
