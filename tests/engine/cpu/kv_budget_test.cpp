// The CPU backend's KV budget: the default (a quarter of free memory, at most 8 GiB) grows to one
// full-length sequence when that leaves half of the free memory alone, and a budget that cannot hold
// one sequence is refused with the sizes and what to change.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/core/cpu_kv_budget.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

constexpr uint64_t GiB = 1ull << 30;

TEST(KvBudget, AQuarterOfFreeMemoryAtMost8GiB) {
    EXPECT_EQ(default_cpu_kv_budget(8 * GiB, GiB / 2), 2 * GiB);
    EXPECT_EQ(default_cpu_kv_budget(64 * GiB, GiB), 8 * GiB);
    EXPECT_EQ(default_cpu_kv_budget(0, 0), 0u);
}

TEST(KvBudget, GrowsToOneFullSequenceWhileHalfOfFreeMemoryStaysFree) {
    // Qwen2.5-7B's 32k context in fp32 KV: 3.6 GiB for one sequence; 12 GiB free gives 3 GiB by default.
    const uint64_t one = uint64_t(3.6 * double(GiB));
    EXPECT_EQ(default_cpu_kv_budget(12 * GiB, one), one);
    EXPECT_EQ(default_cpu_kv_budget(2 * one, one), one);          // exactly half: still taken
    EXPECT_EQ(default_cpu_kv_budget(2 * one - 1, one), (2 * one - 1) / 4);  // more than half: the quarter, refused later
    EXPECT_EQ(default_cpu_kv_budget(80 * GiB, 12 * GiB), 12 * GiB);  // past the 8 GiB cap too, within half
}

TEST(KvBudget, ABudgetBelowOneSequenceIsRefusedWithWhatToChange) {
    auto model = test::load_weights_only(test::fixture_path("models/stories260K"));
    auto backend = make_cpu_backend(*model, test::exact_cpu());
    KvLayout layout{model->config.num_layers, model->config.num_kv_heads, model->config.head_dim, 16, 0};
    const uint64_t per_block = backend->kv_bytes_per_block(layout);
    const int64_t one_sequence = (model->context_length() + 15) / 16;
    EXPECT_EQ(backend->plan_kv_blocks(layout, uint64_t(one_sequence) * per_block, one_sequence), one_sequence);
    try {
        backend->plan_kv_blocks(layout, uint64_t(one_sequence - 1) * per_block, one_sequence);
        FAIL() << "a budget of one block less than a sequence was accepted";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("fewer than the " + std::to_string(one_sequence)), std::string::npos) << m;
        EXPECT_NE(m.find("one full-length sequence"), std::string::npos) << m;
        EXPECT_NE(m.find("--kv-cache-mb"), std::string::npos) << m;
        EXPECT_NE(m.find("--kv-cache-dtype fp8"), std::string::npos) << m;
    }
    // No budget given: stories260K's one sequence is tiny, so the default holds it.
    EXPECT_GE(backend->plan_kv_blocks(layout, 0, one_sequence), one_sequence);
}

}  // namespace
}  // namespace folio
