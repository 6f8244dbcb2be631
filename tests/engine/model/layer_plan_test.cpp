// The model's plan (engine/model/layer_plan.h) as the architecture table writes it: Llama's decoder
// layer step by step with the right weights and options, Mistral's window, the table the config
// parser goes through, and the refusals for what the table does not know.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/model/architectures.h"
#include "engine/model/dummy_model.h"
#include "engine/model/rope.h"

namespace folio {
namespace {

template <class Step>
const Step& step_at(const LayerPlan& layer, size_t i) {
    EXPECT_LT(i, layer.steps.size());
    const Step* s = std::get_if<Step>(&layer.steps.at(i));
    EXPECT_NE(s, nullptr) << "step " << i << " is a " << step_name(layer.steps.at(i));
    static const Step none{};
    return s ? *s : none;
}

struct Tiny {
    ModelConfig config = dummy_config("tiny");
    ModelWeights weights = dummy_weights(config, 7);
};

// Generated once (the random embedding tables take most of this test's time); tests that change the
// config or the weights change a copy (the copies share the weights' memory).
const Tiny& tiny() {
    static const Tiny t;
    return t;
}

TEST(LayerPlan, LlamaLayersAreTheLlamaDecoderLayer) {
    const Tiny& m = tiny();
    const ModelConfig& c = m.config;
    const ModelPlan p = plan_model(c, m.weights);
    EXPECT_EQ(p.architecture, "LlamaForCausalLM");
    ASSERT_EQ(p.layers.size(), size_t(c.num_layers));
    const float scale = 1.0f / std::sqrt(float(c.head_dim));
    for (size_t l = 0; l < p.layers.size(); ++l) {
        const LayerPlan& layer = p.layers[l];
        const LayerWeights& L = m.weights.layers[l];
        const std::string n = "model.layers." + std::to_string(l) + ".";
        ASSERT_EQ(layer.steps.size(), 9u);
        const auto& norm1 = step_at<RmsNorm>(layer, 0);
        EXPECT_EQ(&p.tensor(norm1.weight), &L.input_norm);
        EXPECT_EQ(p.name(norm1.weight), n + "input_layernorm.weight");
        EXPECT_EQ(norm1.eps, c.rms_norm_eps);
        const auto& qkv = step_at<QkvProjection>(layer, 1);
        EXPECT_EQ(&p.linear(qkv.q), &L.q_proj);
        EXPECT_EQ(&p.linear(qkv.k), &L.k_proj);
        EXPECT_EQ(&p.linear(qkv.v), &L.v_proj);
        EXPECT_EQ(p.name(qkv.k), n + "self_attn.k_proj");
        EXPECT_FALSE(qkv.q_bias.present() || qkv.k_bias.present() || qkv.v_bias.present());  // Llama has none
        EXPECT_EQ(step_at<Rope>(layer, 2).table, 0);
        const auto& attn = step_at<Attention>(layer, 3);
        EXPECT_EQ(attn.scale, scale);  // bit for bit what both backends computed before the plan
        EXPECT_EQ(attn.window, 0);
        EXPECT_EQ(&p.linear(step_at<OutProjection>(layer, 4).o), &L.o_proj);
        step_at<ResidualAdd>(layer, 5);
        const auto& norm2 = step_at<RmsNorm>(layer, 6);
        EXPECT_EQ(&p.tensor(norm2.weight), &L.post_attention_norm);
        EXPECT_EQ(p.name(norm2.weight), n + "post_attention_layernorm.weight");
        const auto& mlp = step_at<GatedMlp>(layer, 7);
        EXPECT_EQ(&p.linear(mlp.gate), &L.gate_proj);
        EXPECT_EQ(&p.linear(mlp.up), &L.up_proj);
        EXPECT_EQ(&p.linear(mlp.down), &L.down_proj);
        EXPECT_EQ(p.name(mlp.down), n + "mlp.down_proj");
        EXPECT_EQ(mlp.act, Activation::Silu);
        step_at<ResidualAdd>(layer, 8);
    }
    EXPECT_EQ(&p.tensor(p.embed), &m.weights.embed_tokens);
    EXPECT_EQ(&p.tensor(p.final_norm.weight), &m.weights.final_norm);
    EXPECT_EQ(p.name(p.final_norm.weight), "model.norm.weight");
    EXPECT_EQ(&p.linear(p.lm_head), &m.weights.lm_head);
    EXPECT_EQ(p.name(p.lm_head), "lm_head");
    EXPECT_FALSE(p.tied_embeddings);
    EXPECT_EQ(p.kv_window, 0);
    ASSERT_EQ(p.rope_tables.size(), 1u);
    EXPECT_EQ(p.rope_tables[0], rope_inv_freq(c));
    // The linears in the order a step runs them (the CPU backend packs AWQ weights in this order).
    ASSERT_EQ(p.linears.size(), size_t(7 * c.num_layers + 1));
    for (size_t l = 0; l < size_t(c.num_layers); ++l) {
        const LayerWeights& L = m.weights.layers[l];
        const std::vector<const Linear*> order = {&L.q_proj, &L.k_proj, &L.v_proj, &L.o_proj, &L.gate_proj, &L.up_proj, &L.down_proj};
        for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(p.linears[7 * l + i].linear, order[i]) << "layer " << l << " linear " << i;
    }
    EXPECT_EQ(p.linears.back().linear, &m.weights.lm_head);
}

TEST(LayerPlan, TiedEmbeddingsReadTheEmbeddingTable) {
    ModelConfig c = dummy_config("tiny");
    c.tie_word_embeddings = true;
    const ModelWeights w = dummy_weights(c, 7);
    const ModelPlan p = plan_model(c, w);
    EXPECT_TRUE(p.tied_embeddings);
    EXPECT_EQ(p.linear(p.lm_head).dense.data, w.embed_tokens.data);
    EXPECT_EQ(p.name(p.lm_head), "model.embed_tokens");
}

TEST(LayerPlan, MistralAttendsItsSlidingWindowInEveryLayerAndLlamaIgnoresIt) {
    Tiny m = tiny();
    m.config.sliding_window = 64;
    for (const char* arch : {"MistralForCausalLM", "LlamaForCausalLM"}) {
        m.config.architecture = arch;
        const int expected = std::string(arch) == "MistralForCausalLM" ? 64 : 0;
        const ModelPlan p = plan_model(m.config, m.weights);
        EXPECT_EQ(p.kv_window, expected) << arch;
        EXPECT_EQ(p.kv_window, attention_window(m.config)) << arch;  // what the engine releases blocks by
        for (const LayerPlan& layer : p.layers) EXPECT_EQ(step_at<Attention>(layer, 3).window, expected) << arch;
    }
}

TEST(LayerPlan, TheConfigParserGoesThroughTheArchitectureTable) {
    for (const Architecture& a : architectures()) {
        EXPECT_EQ(find_architecture(a.name), &a);
        EXPECT_EQ(find_architecture_by_model_type(a.model_type), &a);
    }
    EXPECT_EQ(find_architecture("Gemma2ForCausalLM"), nullptr);
    EXPECT_EQ(architecture_names(), "LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM");
    nlohmann::json j = {{"model_type", "mistral"},   {"hidden_size", 64},      {"intermediate_size", 128},
                        {"num_hidden_layers", 2},    {"num_attention_heads", 4}, {"vocab_size", 100}};
    EXPECT_EQ(parse_model_config(j.dump(), "config.json").architecture, "MistralForCausalLM");  // by model_type
    j["architectures"] = {"Gemma2ForCausalLM"};
    try {
        parse_model_config(j.dump(), "config.json");
        FAIL() << "an architecture outside the table was accepted";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("config.json: unknown architecture \"Gemma2ForCausalLM\""), std::string::npos) << msg;
        EXPECT_NE(msg.find("LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM"), std::string::npos) << msg;
    }
}

TEST(LayerPlan, PlanningRefusesWhatTheTableDoesNotKnowAndWeightsThatDoNotMatch) {
    Tiny m = tiny();
    m.config.architecture = "GPT2LMHeadModel";  // set after parsing, as a test or a caller might
    try {
        plan_model(m.config, m.weights);
        FAIL() << "planned an unknown architecture";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("unknown architecture \"GPT2LMHeadModel\": Folio runs LlamaForCausalLM"), std::string::npos)
            << e.what();
    }
    m.config.architecture = "LlamaForCausalLM";
    m.weights.layers.pop_back();
    try {
        plan_model(m.config, m.weights);
        FAIL() << "planned 4 layers over 3 layers of weights";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("the weights hold 3 layers but config.json says 4"), std::string::npos) << e.what();
    }
}

TEST(LayerPlan, RefusalsNameBackendArchitectureLayerStepAndOption) {
    const Tiny& m = tiny();
    const ModelPlan p = plan_model(m.config, m.weights);
    try {
        refuse_plan("CPU backend", p, 2, p.layers[2].steps[1], "projection biases are not supported yet");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "CPU backend: LlamaForCausalLM layer 2, q/k/v projection: projection biases are not supported yet");
    }
    const LayerStep every[] = {RmsNorm{}, QkvProjection{}, HeadNorm{}, Rope{}, Attention{}, OutProjection{}, ResidualAdd{}, GatedMlp{}};
    const char* names[] = {"RMS norm", "q/k/v projection", "q/k head norm", "rotary embedding", "attention", "output projection",
                           "residual add", "gated MLP"};
    for (size_t i = 0; i < std::size(every); ++i) EXPECT_STREQ(step_name(every[i]), names[i]);
}

}  // namespace
}  // namespace folio
