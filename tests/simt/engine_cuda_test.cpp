// The engine loop on the CUDA backend (in the SIMT harness): requests cancelled in the middle of
// their chunked prefill and of their decode free blocks that a later request then reuses, and the
// requests that stay produce exactly what they produce alone (with the GPU's default linear policy,
// and with the hand-written kernels only); a sliding-window model's released blocks (-1 entries in
// the block tables) give the CPU backend's tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "engine/cpu/cpu_backend.h"
#include "engine/model/model.h"
#include "engine/frontdoor/sync_engine.h"
#include "kernels/cuda_backend.h"
#include "support/linear_policies.h"
#include "tests/support/fixtures.h"
#include "tests/support/request_outcomes.h"

namespace folio {
namespace {

EngineOptions small_engine() {
    EngineOptions o;
    o.backend.cpu_activations = CpuActivations::Exact;  // the CPU engine is the reference
    o.block_size = 16;
    o.num_kv_blocks = 4;            // small: the cancelled requests' blocks must be reused
    o.max_num_seqs = 4;
    o.max_num_batched_tokens = 24;  // a 40-token prompt takes two steps
    o.enable_prefix_caching = true;
    return o;
}

std::unique_ptr<SyncEngine> cuda_engine(const std::shared_ptr<const Model>& m) {
    const EngineOptions o = small_engine();
    return std::make_unique<SyncEngine>(m, make_cuda_backend(*m, backend_options_for(o)), o);
}

std::vector<int32_t> prompt(int n, int salt) {
    std::vector<int32_t> p{1};
    for (int i = 1; i < n; ++i) p.push_back(3 + (i * 29 + salt * 101) % 500);
    return p;
}

using Outcome = test::RequestOutcome;

void collect(const std::vector<Event>& events, std::map<RequestId, Outcome>& out) {
    for (const Event& e : events) ASSERT_NE(e.kind, Event::Kind::Error) << e.message;
    test::absorb(events, out);
}

std::vector<int32_t> alone(const std::shared_ptr<const Model>& m, const Request& r) {
    auto core = cuda_engine(m);
    const RequestId id = core->add(r);
    std::map<RequestId, Outcome> out;
    while (core->has_unfinished()) collect(core->step(), out);
    collect(core->step(), out);
    return out[id].ids;
}

// Returns the products each linear path ran in the engine that cancelled.
cuda::LinearPathCounts cancelling_mid_prefill_and_mid_decode_leaves_the_others_untouched() {
    const std::shared_ptr<const Model> m = load_model(test::fixture_path("models/stories260K"));
    const Request a = fixed_length_greedy_request(prompt(9, 1), 14), b = fixed_length_greedy_request(prompt(40, 2), 14),
                  c = fixed_length_greedy_request(prompt(20, 3), 14), d = fixed_length_greedy_request(prompt(33, 4), 10);
    auto core = cuda_engine(m);
    std::map<RequestId, Outcome> out;
    const RequestId ia = core->add(a), ib = core->add(b), ic = core->add(c);
    const cuda::LinearPathCounts made = cuda_linear_path_counts(core->backend());
    collect(core->step(), out);  // a prefills whole, b's first 15 tokens
    EXPECT_TRUE(out[ib].ids.empty());
    const auto blocks_of = [&](RequestId r) { return core->scheduler().kv().sequence(r).blocks; };
    std::vector<int32_t> freed = blocks_of(ib);
    core->cancel(ib);            // b: mid-prefill, its KV half written
    for (int i = 0; i < 4; ++i) collect(core->step(), out);
    EXPECT_FALSE(out[ic].ids.empty());
    for (int32_t blk : blocks_of(ic)) freed.push_back(blk);
    core->cancel(ic);            // c: mid-decode (decode batches replayed from CUDA graphs)
    const RequestId id = core->add(d);
    collect(core->step(), out);
    int reused = 0;
    for (int32_t blk : blocks_of(id)) reused += std::count(freed.begin(), freed.end(), blk) > 0;
    EXPECT_GE(reused, 2) << "d was meant to run in blocks b and c left with stale KV in them";
    while (core->has_unfinished()) collect(core->step(), out);
    collect(core->step(), out);
    EXPECT_EQ(out[ib].end.reason, FinishReason::Cancelled);
    EXPECT_EQ(out[ic].end.reason, FinishReason::Cancelled);
    EXPECT_LT(out[ic].ids.size(), 14u);
    EXPECT_EQ(out[ia].end.reason, FinishReason::Length);
    EXPECT_EQ(out[id].end.reason, FinishReason::Length);
    EXPECT_EQ(out[ia].ids, alone(m, a));
    EXPECT_EQ(out[id].ids, alone(m, d));
    return cuda_linear_path_counts(core->backend()).since(made);
}

TEST(CudaEngine, CancellingMidPrefillAndMidDecodeLeavesTheOthersUntouched) {
    const cuda::LinearPathCounts n = cancelling_mid_prefill_and_mid_decode_leaves_the_others_untouched();
    EXPECT_GT(n.dense_cublas, 0u);
    EXPECT_EQ(n.hand_written(), 0u);
}

TEST(CudaEngine, CancellingMidPrefillAndMidDecodeLeavesTheOthersUntouchedWithTheHandWrittenKernelsOnly) {
    const test::HandWrittenKernelsOnly policy;
    const cuda::LinearPathCounts n = cancelling_mid_prefill_and_mid_decode_leaves_the_others_untouched();
    EXPECT_EQ(n.cublas(), 0u);
    EXPECT_GT(n.dense_mma, 0u);
    EXPECT_GT(n.dense_gemv, 0u);
}

// stories260K as a Mistral with a 32-token window, blocks of 16, a pool of four blocks (64 tokens)
// for a 100-token conversation: the engine releases the blocks that leave the window, so the CUDA
// backend (prefill chunks, then decodes replayed from CUDA graphs) gets block tables whose leading
// entries are -1, and must give the CPU backend's tokens holding the whole context.
TEST(CudaEngine, SlidingWindowWithReleasedBlocksGivesTheCpuTokens) {
    std::unique_ptr<Model> windowed = load_model(test::fixture_path("models/stories260K"));
    windowed->config.architecture = "MistralForCausalLM";
    windowed->config.sliding_window = 32;
    const std::shared_ptr<const Model> m(std::move(windowed));
    const Request r = fixed_length_greedy_request(prompt(40, 5), 60);

    EngineOptions whole = small_engine();
    whole.num_kv_blocks = 16;
    whole.free_out_of_window_blocks = false;
    SyncEngine cpu(m, make_cpu_backend(*m, backend_options_for(whole)), whole);
    const RequestId c = cpu.add(r);
    std::map<RequestId, Outcome> want;
    while (cpu.has_unfinished()) collect(cpu.step(), want);
    collect(cpu.step(), want);
    ASSERT_EQ(want[c].ids.size(), 60u);

    const EngineOptions o = small_engine();  // four blocks, freeing on
    ASSERT_TRUE(o.free_out_of_window_blocks);
    SyncEngine gpu(m, make_cuda_backend(*m, backend_options_for(o)), o);
    const RequestId g = gpu.add(r);
    std::map<RequestId, Outcome> got;
    int most_released = 0;
    while (gpu.has_unfinished()) {
        collect(gpu.step(), got);
        gpu.scheduler().check_invariants();
        if (gpu.scheduler().kv().holds(g)) most_released = std::max(most_released, gpu.scheduler().kv().sequence(g).num_released);
    }
    collect(gpu.step(), got);
    EXPECT_EQ(got[g].end.reason, FinishReason::Length);
    EXPECT_EQ(got[g].ids, want[c].ids);
    EXPECT_GE(most_released, 4);  // 100 tokens: blocks 0..3 left the window
}

}  // namespace
}  // namespace folio
