// Greedy parity of the CPU backend against ids produced by an independent float64 implementation.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/backend/backend.h"
#include "engine/cpu/cpu_backend.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

int argmax(const float* x, int n) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i;
    return best;
}

// Runs greedy decoding through the backend: one prefill of the whole prompt, then single-token steps,
// with a block table that is deliberately not in order (physical blocks reversed).
std::vector<int> greedy(Backend& backend, const Model& m, const std::vector<int>& prompt, int steps, int prefill_chunk) {
    KvLayout layout{m.config.num_layers, m.config.num_kv_heads, m.config.head_dim, 16, 64};
    backend.allocate_kv(layout);
    std::vector<int32_t> table;
    for (int b = 0; b < 64; ++b) table.push_back(63 - b);
    std::vector<int> out;
    std::vector<float> logits;
    std::vector<int> seq = prompt;
    int cached = 0;
    while (int(out.size()) < steps) {
        ForwardBatch batch;
        const int n = std::min(prefill_chunk, int(seq.size()) - cached);
        batch.tokens.assign(seq.begin() + cached, seq.begin() + cached + n);
        SeqSlice s;
        s.num_tokens = n;
        s.context_before = cached;
        s.num_blocks = (cached + n + 15) / 16;
        s.want_logits = cached + n == int(seq.size());
        batch.block_tables.assign(table.begin(), table.begin() + s.num_blocks);
        batch.seqs.push_back(s);
        backend.forward(batch, logits);
        cached += n;
        if (!s.want_logits) continue;
        EXPECT_EQ(logits.size(), size_t(m.config.vocab_size));
        const int next = argmax(logits.data(), m.config.vocab_size);
        out.push_back(next);
        seq.push_back(next);
    }
    return out;
}

void check_fixture(const std::string& name, int prefill_chunk) {
    const std::string dir = test::fixture_path("models/" + name);
    const auto expected = nlohmann::json::parse(test::read_file(dir + "/expected_greedy.json"));
    auto model = test::load_weights_only(dir);
    auto backend = make_cpu_backend(*model, test::exact_cpu());
    ASSERT_FALSE(expected["cases"].empty());
    for (const auto& c : expected["cases"]) {
        const auto prompt = c["prompt_ids"].get<std::vector<int>>();
        const auto ids = c["ids"].get<std::vector<int>>();
        EXPECT_EQ(greedy(*backend, *model, prompt, int(ids.size()), prefill_chunk), ids) << name << ": " << c["prompt"];
    }
}

TEST(GreedyParity, Stories260K) { check_fixture("stories260K", 1 << 20); }
TEST(GreedyParity, Stories260KChunkedPrefill) { check_fixture("stories260K", 2); }
TEST(GreedyParity, TinyAwq) { check_fixture("tiny-awq", 1 << 20); }
// FP8 checkpoints, weight-only (W8A16): the fixture's ids come from a float64 implementation that
// dequantizes the weights once and keeps activations in full precision.
TEST(GreedyParity, Stories260KFp8PerTensor) { check_fixture("stories260K-fp8", 1 << 20); }
TEST(GreedyParity, Stories260KFp8PerChannel) { check_fixture("stories260K-fp8-ct", 1 << 20); }
TEST(GreedyParity, Stories260KFp8ChunkedPrefill) { check_fixture("stories260K-fp8-ct", 3); }
// The current families (issue 14), each against its own float64 reference: Llama-3.1 (llama3 rope
// scaling, tied embeddings), Qwen2 (q/k/v biases), Qwen3 (q/k head norms, head_dim 16 != 32 / 4).
TEST(GreedyParity, TinyLlama3) { check_fixture("tiny-llama3", 1 << 20); }
TEST(GreedyParity, TinyQwen2) { check_fixture("tiny-qwen2", 1 << 20); }
TEST(GreedyParity, TinyQwen3) { check_fixture("tiny-qwen3", 1 << 20); }
TEST(GreedyParity, TinyQwen3ChunkedPrefill) { check_fixture("tiny-qwen3", 3); }

}  // namespace
}  // namespace folio
