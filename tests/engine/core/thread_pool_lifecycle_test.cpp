// A pool created and destroyed before its workers first run, or dispatching at once, must neither
// hang nor lose tasks (a regression: workers used to read the starting generation themselves).
#include <gtest/gtest.h>

#include <atomic>

#include "engine/core/thread_pool.h"

namespace folio {
namespace {

TEST(ThreadPoolLifecycle, CreateDispatchDestroyRepeatedly) {
    std::atomic<int64_t> sum{0};
    int64_t expected = 0;
    for (int i = 0; i < 3000; ++i) {
        ThreadPool pool(3);
        if (i % 3 != 0) {
            pool.run(5, [&](int64_t t) { sum += t + 1; });
            expected += 15;
        }
    }
    EXPECT_EQ(sum.load(), expected);
}

TEST(ThreadPoolLifecycle, EveryTaskRunsOnce) {
    ThreadPool pool(4);
    for (int64_t n : {1, 2, 7, 64, 1000}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        pool.run(n, [&](int64_t t) { hits[size_t(t)]++; });
        for (int64_t t = 0; t < n; ++t) ASSERT_EQ(hits[size_t(t)].load(), 1) << "n=" << n << " task " << t;
        std::vector<std::atomic<int>> covered(static_cast<size_t>(n));
        pool.parallel_for(n, 3, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) covered[size_t(i)]++;
        });
        for (int64_t t = 0; t < n; ++t) ASSERT_EQ(covered[size_t(t)].load(), 1);
    }
}

}  // namespace
}  // namespace folio
