// dummy:llama-3.1-8b-awq and dummy:qwen2.5-7b-awq: their configs are the real checkpoints' config.json
// shapes, and one decoder layer at the real matrix sizes (4-bit, group 128; vocabulary cut to 256 so
// no 8B of weights is generated) gets the family's plan with every linear as AWQ.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/model/architectures.h"
#include "engine/model/dummy_model.h"
#include "engine/model/layer_plan.h"
#include "engine/model/rope.h"
#include "engine/model/weights_loader.h"

namespace folio {
namespace {

struct Expect {
    const char* name;
    const char* architecture;
    int hidden, layers, heads, kv_heads, intermediate, vocab;
    float rope_theta, eps;
    bool llama3_rope, qkv_bias;
};

void check(const Expect& e) {
    SCOPED_TRACE(e.name);
    ModelConfig c = dummy_config(e.name);
    EXPECT_EQ(c.architecture, e.architecture);
    EXPECT_EQ(c.hidden_size, e.hidden);
    EXPECT_EQ(c.num_layers, e.layers);
    EXPECT_EQ(c.num_heads, e.heads);
    EXPECT_EQ(c.num_kv_heads, e.kv_heads);
    EXPECT_EQ(c.head_dim, 128);
    EXPECT_EQ(c.intermediate_size, e.intermediate);
    EXPECT_EQ(c.vocab_size, e.vocab);
    EXPECT_EQ(c.rope_theta, e.rope_theta);
    EXPECT_EQ(c.rms_norm_eps, e.eps);
    EXPECT_FALSE(c.tie_word_embeddings);
    EXPECT_EQ(c.rope_scaling.has_value(), e.llama3_rope);
    if (e.llama3_rope) {  // Llama-3.1's rope_scaling
        EXPECT_EQ(c.rope_scaling->type, "llama3");
        EXPECT_EQ(c.rope_scaling->factor, 8.0f);
        EXPECT_EQ(c.rope_scaling->low_freq_factor, 1.0f);
        EXPECT_EQ(c.rope_scaling->high_freq_factor, 4.0f);
        EXPECT_EQ(c.rope_scaling->original_max_position_embeddings, 8192);
    }
    EXPECT_EQ(c.quant.method, QuantConfig::Method::Awq);
    EXPECT_EQ(c.quant.group_size, 128);

    c.num_layers = 1;   // one layer at the real sizes
    c.vocab_size = 256;
    const ModelWeights w = dummy_weights(c, 3);
    const ModelPlan p = plan_model(c, w);
    EXPECT_EQ(p.architecture, e.architecture);
    ASSERT_EQ(p.layers.size(), 1u);
    ASSERT_EQ(p.layers[0].steps.size(), 9u);
    const auto& qkv = std::get<QkvProjection>(p.layers[0].steps[1]);
    EXPECT_EQ(qkv.q_bias.present(), e.qkv_bias);
    EXPECT_EQ(qkv.v_bias.present(), e.qkv_bias);
    if (e.qkv_bias) {
        EXPECT_EQ(p.tensor(qkv.k_bias).numel(), e.kv_heads * 128);
    }
    EXPECT_EQ(p.linear(qkv.q).out, e.heads * 128);
    EXPECT_EQ(p.linear(qkv.k).out, e.kv_heads * 128);
    const auto& mlp = std::get<GatedMlp>(p.layers[0].steps[7]);
    EXPECT_EQ(p.linear(mlp.down).in, e.intermediate);
    EXPECT_EQ(p.linear(mlp.down).out, e.hidden);
    ASSERT_EQ(p.linears.size(), 8u);
    for (size_t i = 0; i + 1 < p.linears.size(); ++i) {
        EXPECT_EQ(p.linears[i].linear->kind, Linear::Kind::Awq) << p.linears[i].name;
        EXPECT_EQ(p.linears[i].linear->awq.group_size, 128) << p.linears[i].name;
    }
    EXPECT_EQ(p.linears.back().linear->kind, Linear::Kind::Dense);  // lm_head stays fp16, as AutoAWQ leaves it
    ASSERT_EQ(p.rope_tables.size(), 1u);
    EXPECT_EQ(p.rope_tables[0], rope_inv_freq(c));
    EXPECT_EQ(p.kv_window, 0);
    // The 4-bit layer as stored: half a byte per weight, plus fp16 scales and 4-bit zeros per group.
    const uint64_t per_layer = uint64_t(e.hidden) * uint64_t((e.heads + 2 * e.kv_heads) * 128 + e.heads * 128 + 3 * e.intermediate);
    uint64_t bytes = 0;
    for (size_t i = 0; i + 1 < p.linears.size(); ++i) bytes += linear_bytes(*p.linears[i].linear);
    EXPECT_EQ(bytes, per_layer / 2 + per_layer / 128 * 2 + per_layer / 128 / 2);
}

TEST(DummyAwqShapes, Llama31_8B) {
    check({"llama-3.1-8b-awq", "LlamaForCausalLM", 4096, 32, 32, 8, 14336, 128256, 500000.0f, 1e-5f, true, false});
}

TEST(DummyAwqShapes, Qwen25_7B) {
    check({"qwen2.5-7b-awq", "Qwen2ForCausalLM", 3584, 28, 28, 4, 18944, 152064, 1000000.0f, 1e-6f, false, true});
}

}  // namespace
}  // namespace folio
