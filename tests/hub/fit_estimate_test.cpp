// "Will it fit?": the arithmetic against figures worked out by hand for real shapes (Llama-3.1-8B
// on a 24 GB card, on RAM), and the reasons given when it does not fit.
#include <gtest/gtest.h>

#include "engine/hub/fit_estimate.h"

namespace folio::hub {
namespace {

ModelSummary llama31_8b(uint64_t weight_bytes) {
    ModelSummary s;
    s.hidden_size = 4096;
    s.intermediate_size = 14336;
    s.num_layers = 32;
    s.num_heads = 32;
    s.num_kv_heads = 8;
    s.head_dim = 128;
    s.vocab_size = 128256;
    s.max_context = 131072;
    s.weight_bytes = weight_bytes;
    return s;
}

constexpr uint64_t GiB = 1ull << 30;

TEST(FitEstimate, AwqLlama8bOnA24GbCard) {
    const MemoryBudget b = memory_budget("RTX 4090", true, 24 * GiB, 23 * GiB + GiB / 2);
    // 90% of 24 GiB less the 0.5 GiB other processes hold.
    EXPECT_EQ(b.usable, uint64_t(24.0 * GiB * 0.9 - 0.5 * GiB));
    const FitEstimate f = estimate_fit(llama31_8b(5730000000), b, 8192);
    ASSERT_TRUE(f.known);
    EXPECT_EQ(f.kv_per_token, 131072u);            // 2 x 32 layers x 8 heads x 128 x 2 bytes
    EXPECT_EQ(f.kv_per_conversation, 1ull << 30);  // 8192 tokens
    // 2048 tokens x (4x4096 + 4096 + 2x1024 + 3x14336) x 2 bytes, logits of 64 rows, 256 MiB workspace
    EXPECT_EQ(f.activations, 268435456u + 64u * 128256u * 4u + (256u << 20));
    EXPECT_EQ(f.conversations, 15);  // (22.66e9 - 5.73e9 - 0.57e9) / 1 GiB
    EXPECT_TRUE(f.fits);
    EXPECT_EQ(f.verdict, "fits: 15 conversations of 8192 tokens on RTX 4090");

    // The full 128K context: one conversation needs 16 GiB of KV.
    const FitEstimate full = estimate_fit(llama31_8b(5730000000), b);
    EXPECT_EQ(full.context, 131072);
    EXPECT_FALSE(full.fits);
    EXPECT_NE(full.verdict.find("one 131072-token conversation 17.2 GB"), std::string::npos) << full.verdict;
    EXPECT_NE(full.verdict.find("shorter context"), std::string::npos) << full.verdict;
}

TEST(FitEstimate, WeightsTooLargeSaysSoAndSuggestsFourBit) {
    const MemoryBudget b = memory_budget("RTX 4090", true, 24 * GiB, 24 * GiB);
    const FitEstimate f = estimate_fit(llama31_8b(141000000000ull), b, 4096);  // a 70B in bf16
    EXPECT_FALSE(f.fits);
    EXPECT_EQ(f.conversations, 0);
    EXPECT_NE(f.verdict.find("weights 141.0 GB"), std::string::npos) << f.verdict;
    EXPECT_NE(f.verdict.find("4-bit"), std::string::npos) << f.verdict;
}

TEST(FitEstimate, CpuUsesFp32KvAndTheEnginesKvBudget) {
    const MemoryBudget b = memory_budget("RAM", false, 32 * GiB, 16 * GiB);
    EXPECT_EQ(b.usable, 16 * GiB);
    EXPECT_EQ(b.kv_budget, 4 * GiB);
    const FitEstimate f = estimate_fit(llama31_8b(5730000000), b, 8192);
    EXPECT_EQ(f.kv_per_token, 262144u);  // fp32
    EXPECT_EQ(f.conversations, 2);       // 4 GiB / 2 GiB
    EXPECT_EQ(f.verdict, "fits: 2 conversations of 8192 tokens on the CPU");
    const FitEstimate full = estimate_fit(llama31_8b(5730000000), b);
    EXPECT_FALSE(full.fits);
    EXPECT_NE(full.verdict.find("CPU backend's budget"), std::string::npos) << full.verdict;
}

TEST(FitEstimate, CpuBudgetGrowsToOneLongConversation) {
    // 24 GiB free: the quarter (6 GiB) is less than one 32k conversation (8 GiB), which still leaves
    // more than half of what the weights leave: the backend takes it, and the estimate says so.
    const MemoryBudget b = memory_budget("RAM", false, 64 * GiB, 24 * GiB);
    EXPECT_EQ(b.kv_budget, 6 * GiB);
    const FitEstimate f = estimate_fit(llama31_8b(5730000000), b, 32768);
    EXPECT_EQ(f.kv_per_conversation, 8 * GiB);
    EXPECT_EQ(f.verdict, "fits: 1 conversation of 32768 tokens on the CPU");
    // 12 GiB free: 8 GiB would be more than half of what is left: does not fit, naming the budget.
    const FitEstimate tight = estimate_fit(llama31_8b(5730000000), memory_budget("RAM", false, 64 * GiB, 12 * GiB), 32768);
    EXPECT_FALSE(tight.fits);
    EXPECT_NE(tight.verdict.find("CPU backend's budget of 3.2 GB"), std::string::npos) << tight.verdict;
}

TEST(FitEstimate, SlidingWindowHoldsOnlyTheWindow) {
    ModelSummary s = llama31_8b(4000000000);
    s.sliding_window = 4096;
    const FitEstimate f = estimate_fit(s, memory_budget("GPU", true, 24 * GiB, 24 * GiB), 32768);
    EXPECT_EQ(f.kv_per_conversation, uint64_t(4096 + 32) * 131072u);
}

TEST(FitEstimate, ContextNeverExceedsTheModels) {
    ModelSummary s = llama31_8b(4000000000);
    s.max_context = 2048;
    EXPECT_EQ(estimate_fit(s, memory_budget("GPU", true, 24 * GiB, 24 * GiB), 8192).context, 2048);
    EXPECT_EQ(estimate_fit(s, memory_budget("GPU", true, 24 * GiB, 24 * GiB), 1024).context, 1024);
}

TEST(FitEstimate, UnknownShapesAreSaidUnknown) {
    const FitEstimate f = estimate_fit(ModelSummary{}, memory_budget("GPU", true, 24 * GiB, 24 * GiB));
    EXPECT_FALSE(f.known);
    EXPECT_FALSE(f.fits);
    EXPECT_NE(f.verdict.find("unknown"), std::string::npos);
}

TEST(FitEstimate, MemoryOurEngineHoldsCountsAsFree) {
    const MemoryBudget busy = memory_budget("GPU", true, 24 * GiB, 4 * GiB);
    const MemoryBudget ours = memory_budget("GPU", true, 24 * GiB, 4 * GiB, 20 * GiB);
    EXPECT_LT(busy.usable, 2 * GiB);
    EXPECT_EQ(ours.usable, uint64_t(24.0 * GiB * 0.9));
}

}  // namespace
}  // namespace folio::hub
