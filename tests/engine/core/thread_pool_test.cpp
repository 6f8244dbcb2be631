// The persistent thread pool: every task runs exactly once, for many back-to-back jobs (the decode
// loop issues hundreds per step), with any pool size, and parallel_for covers its range exactly.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "engine/core/thread_pool.h"

namespace folio {
namespace {

TEST(ThreadPool, RunsEveryTaskExactlyOnceAcrossManyJobs) {
    for (int threads : {1, 2, 3, 8}) {
        ThreadPool pool(threads);
        EXPECT_EQ(pool.size(), threads);
        std::vector<std::atomic<int>> hits(257);
        for (int job = 0; job < 2000; ++job) {
            const int n = 1 + job % 257;
            pool.run(n, [&](int64_t t) { hits[size_t(t)].fetch_add(1, std::memory_order_relaxed); });
        }
        for (int t = 0; t < 257; ++t) {
            int expected = 0;
            for (int job = 0; job < 2000; ++job) expected += t < 1 + job % 257 ? 1 : 0;
            ASSERT_EQ(hits[size_t(t)].load(), expected) << "threads " << threads << " task " << t;
        }
    }
}

TEST(ThreadPool, UsesItsWorkers) {
    ThreadPool pool(2);
    std::atomic<int> other{0};
    const auto caller = std::this_thread::get_id();
    // Tasks that wait a little give the worker time to join; at least one must run elsewhere.
    for (int attempt = 0; attempt < 50 && other.load() == 0; ++attempt)
        pool.run(16, [&](int64_t) {
            if (std::this_thread::get_id() != caller) other.fetch_add(1);
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        });
    EXPECT_GT(other.load(), 0);
}

TEST(ThreadPool, ParallelForCoversTheRangeInDisjointChunks) {
    ThreadPool pool(2);
    for (int64_t n : {1, 2, 7, 100, 4097})
        for (int64_t grain : {1, 3, 64, 10000}) {
            std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
            std::atomic<int> bad{0};
            pool.parallel_for(n, grain, [&](int64_t b, int64_t e) {
                if (b >= e || b < 0 || e > n) bad.fetch_add(1);
                for (int64_t i = b; i < e; ++i) hits[size_t(i)].fetch_add(1);
            });
            EXPECT_EQ(bad.load(), 0);
            for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[size_t(i)].load(), 1) << "n " << n << " grain " << grain;
        }
}

TEST(ThreadPool, SleepsAndWakesUp) {
    ThreadPool pool(2);
    std::atomic<int> count{0};
    pool.run(4, [&](int64_t) { count.fetch_add(1); });
    // Longer than the spin window, so the worker is asleep on the condition variable.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pool.run(4, [&](int64_t) { count.fetch_add(1); });
    EXPECT_EQ(count.load(), 8);
}

TEST(ThreadPool, TwoPoolsFromTwoThreads) {
    ThreadPool a(2), b(2);
    std::atomic<int64_t> sa{0}, sb{0};
    std::thread other([&] {
        for (int j = 0; j < 300; ++j) b.run(32, [&](int64_t t) { sb.fetch_add(t); });
    });
    for (int j = 0; j < 300; ++j) a.run(32, [&](int64_t t) { sa.fetch_add(t); });
    other.join();
    EXPECT_EQ(sa.load(), 300 * (31 * 32 / 2));
    EXPECT_EQ(sb.load(), 300 * (31 * 32 / 2));
}

}  // namespace
}  // namespace folio
