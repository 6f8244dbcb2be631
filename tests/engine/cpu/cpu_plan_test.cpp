// The CPU backend runs every step and option of the plan (layer_plan.h): the families' own steps are
// checked end to end by greedy_parity_test (tiny-qwen2, tiny-qwen3); here, what it refuses at load (a
// tensor whose size the step's loop would read past) and the padded vocabulary it never samples.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/model/architectures.h"
#include "engine/model/dummy_model.h"
#include "engine/model/model.h"
#include "engine/sampling/sampler.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

std::string refusal(const ModelPlan& plan) {
    try {
        check_cpu_plan(plan);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(CpuPlan, RunsEveryFamilyAndRefusesABiasOfTheWrongSizeByName) {
    for (const char* arch : {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"}) {
        ModelConfig c = dummy_config("tiny");
        c.architecture = arch;
        const ModelWeights w = dummy_weights(c, 3);
        EXPECT_EQ(refusal(plan_model(c, w)), "") << arch;
    }
    ModelConfig c = dummy_config("tiny");
    c.architecture = "Qwen2ForCausalLM";
    const ModelWeights w = dummy_weights(c, 3);
    ModelPlan biased = plan_model(c, w);
    // A [hidden] tensor as v_proj's bias, whose output is kv_heads * head_dim = 128 wide.
    std::get<QkvProjection>(biased.layers[1].steps[1]).v_bias = biased.add_tensor("model.norm.weight", w.final_norm);
    EXPECT_EQ(refusal(biased), "CPU backend: Qwen2ForCausalLM layer 1, q/k/v projection: model.norm.weight has 256 values, not 128");
}

// Qwen's embedding has 151936 rows for the tokenizer's 151669 ids: the rest are never sampled, even
// where their random weights give the largest logits.
TEST(CpuPlan, PaddedVocabularyRowsGetNoProbability) {
    auto model = load_model(test::fixture_path("models/tiny-qwen3"));
    ASSERT_EQ(model->config.vocab_size, 151936);
    ASSERT_EQ(model->config.decodable_vocab, 151669);
    auto backend = make_cpu_backend(*model, test::exact_cpu());
    backend->allocate_kv({model->config.num_layers, model->config.num_kv_heads, model->config.head_dim, 16, 4});
    ForwardBatch batch;
    batch.tokens = {785, 6722, 315};
    SeqSlice s;
    s.num_tokens = 3;
    s.num_blocks = 1;
    s.want_logits = true;
    batch.block_tables = {0};
    batch.seqs.push_back(s);
    std::vector<float> logits;
    backend->forward(batch, logits);
    ASSERT_EQ(logits.size(), size_t(151936));
    for (int id = 151669; id < 151936; ++id) ASSERT_TRUE(std::isinf(logits[size_t(id)]) && logits[size_t(id)] < 0) << id;
    for (int id = 0; id < 151669; ++id) ASSERT_TRUE(std::isfinite(logits[size_t(id)])) << id;
    // A hot sampler (temperature 50 flattens the distribution) draws from the tokenizer's ids only.
    SamplingParams p;
    p.temperature = 50.0f;
    Sampler sampler;
    for (uint64_t step = 0; step < 200; ++step) {
        std::vector<float> row = logits;
        SamplingRow r;
        r.params = &p;
        r.seed = 7;
        r.step = step;
        EXPECT_LT(sampler.sample(row.data(), int(row.size()), r), 151669);
    }
}

}  // namespace
}  // namespace folio
