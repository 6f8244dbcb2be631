// The config keys of the current families (issue 14): Qwen2's q/k/v biases and use_sliding_window,
// Qwen3's head norms and explicit head_dim, Llama-3.x's llama3 rope scaling and eos lists, Mistral-Nemo's
// head_dim, transformers 5's rope_parameters; and the plans the table writes for them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/model/architectures.h"
#include "engine/model/dummy_model.h"
#include "engine/model/rope.h"

namespace folio {
namespace {

nlohmann::json base(const char* arch, const char* type) {
    return {{"architectures", {arch}}, {"model_type", type},       {"hidden_size", 64},     {"intermediate_size", 128},
            {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"vocab_size", 1000}};
}

std::string refusal(const nlohmann::json& j) {
    try {
        parse_model_config(j.dump(), "config.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(FamilyConfig, RopeParametersReadAsRopeThetaAndRopeScaling) {
    // Llama-3.1 as transformers 4 writes it, and as transformers 5 does.
    nlohmann::json old = base("LlamaForCausalLM", "llama");
    old["rope_theta"] = 500000.0;
    old["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0},
                           {"original_max_position_embeddings", 8192}};
    nlohmann::json v5 = base("LlamaForCausalLM", "llama");
    v5["rope_parameters"] = old["rope_scaling"];
    v5["rope_parameters"]["rope_theta"] = 500000.0;
    const ModelConfig a = parse_model_config(old.dump(), "config.json");
    const ModelConfig b = parse_model_config(v5.dump(), "config.json");
    EXPECT_EQ(b.rope_theta, 500000.0f);
    ASSERT_TRUE(b.rope_scaling.has_value());
    EXPECT_EQ(b.rope_scaling->type, "llama3");
    EXPECT_EQ(rope_inv_freq(a), rope_inv_freq(b));

    // Qwen3 in transformers 5: the default type, only a theta.
    nlohmann::json q = base("Qwen3ForCausalLM", "qwen3");
    q["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 1000000.0}};
    const ModelConfig c = parse_model_config(q.dump(), "config.json");
    EXPECT_EQ(c.rope_theta, 1000000.0f);
    EXPECT_FALSE(c.rope_scaling.has_value());
    q["rope_parameters"] = {{"rope_type", "yarn"}, {"rope_theta", 1000000.0}, {"factor", 4.0}};
    EXPECT_EQ(refusal(q), "config.json rope_parameters: rope scaling type \"yarn\" is not supported (llama3, linear)");
    q["rope_parameters"] = 5;
    EXPECT_EQ(refusal(q), "config.json: \"rope_parameters\" must be an object");
}

TEST(FamilyConfig, QwenBiasesAndWindowsAreTheArchitecturesNotTheFlags) {
    // Qwen2.5's config says attention_bias nowhere or true; its q/k/v biases are always there.
    nlohmann::json q2 = base("Qwen2ForCausalLM", "qwen2");
    q2["attention_bias"] = true;
    q2["use_sliding_window"] = false;
    q2["sliding_window"] = 32768;
    q2["max_position_embeddings"] = 65536;
    const ModelConfig c = parse_model_config(q2.dump(), "config.json");
    EXPECT_EQ(attention_window(c), 0) << "use_sliding_window false: every key attended";
    EXPECT_TRUE(find_architecture(c.architecture)->qkv_bias);
    q2["use_sliding_window"] = true;
    EXPECT_EQ(refusal(q2),
              "config.json: use_sliding_window true is not supported for Qwen2ForCausalLM (its window applies per layer); set it to "
              "false to attend the whole context as the released checkpoints do");
    // Elsewhere attention_bias would put a bias on o_proj too.
    nlohmann::json q3 = base("Qwen3ForCausalLM", "qwen3");
    q3["attention_bias"] = true;
    EXPECT_EQ(refusal(q3), "config.json: attention_bias true is not supported for Qwen3ForCausalLM (biases on q/k/v/o projections); only "
                           "Qwen2's q/k/v biases are");
}

TEST(FamilyConfig, ExplicitHeadDimAndEosLists) {
    // Qwen3-0.6B: hidden 1024, 16 heads, head_dim 128 (q_proj 2048 wide); Mistral-Nemo: 5120 / 32 with 128.
    nlohmann::json q3 = base("Qwen3ForCausalLM", "qwen3");
    q3["hidden_size"] = 1024;
    q3["num_attention_heads"] = 16;
    q3["num_key_value_heads"] = 8;
    q3["head_dim"] = 128;
    EXPECT_EQ(parse_model_config(q3.dump(), "config.json").head_dim, 128);
    nlohmann::json nemo = base("MistralForCausalLM", "mistral");
    nemo["hidden_size"] = 5120;
    nemo["num_attention_heads"] = 32;
    nemo["num_key_value_heads"] = 8;
    nemo["head_dim"] = 128;
    nemo["sliding_window"] = nullptr;
    nemo["eos_token_id"] = {2, 7};
    const ModelConfig n = parse_model_config(nemo.dump(), "config.json");
    EXPECT_EQ(n.head_dim, 128);
    EXPECT_EQ(attention_window(n), 0);
    EXPECT_EQ(n.eos_token_ids, (std::vector<int>{2, 7}));
}

TEST(FamilyConfig, EachFamilyIsOneChangeToLlamasPlan) {
    ModelConfig c = dummy_config("tiny");
    c.architecture = "Qwen2ForCausalLM";
    const ModelWeights w2 = dummy_weights(c, 5);
    const ModelPlan q2 = plan_model(c, w2);
    const auto& qkv = std::get<QkvProjection>(q2.layers[1].steps[1]);
    EXPECT_EQ(q2.name(qkv.v_bias), "model.layers.1.self_attn.v_proj.bias");
    EXPECT_EQ(q2.tensor(qkv.q_bias).numel(), c.num_heads * c.head_dim);

    c.architecture = "Qwen3ForCausalLM";
    c.head_dim = 64;  // explicit, != 256 / 8
    const ModelWeights w3 = dummy_weights(c, 5);
    const ModelPlan q3 = plan_model(c, w3);
    ASSERT_EQ(q3.layers[0].steps.size(), 10u);
    const auto& norm = std::get<HeadNorm>(q3.layers[0].steps[2]);  // after q/k/v, before RoPE
    EXPECT_TRUE(std::holds_alternative<Rope>(q3.layers[0].steps[3]));
    EXPECT_EQ(q3.name(norm.k_weight), "model.layers.0.self_attn.k_norm.weight");
    EXPECT_EQ(q3.tensor(norm.q_weight).numel(), 64);
    EXPECT_EQ(q3.linear(std::get<QkvProjection>(q3.layers[0].steps[1]).q).out, 8 * 64);
    EXPECT_EQ(q3.sampled_vocab, c.vocab_size);
    c.decodable_vocab = 31000;  // the tokenizer is smaller than the embedding
    EXPECT_EQ(plan_model(c, w3).sampled_vocab, 31000);

    // The dummy shapes of the real checkpoints.
    const ModelConfig l31 = dummy_config("llama-3.1-8b");
    EXPECT_EQ(l31.rope_scaling->type, "llama3");
    EXPECT_EQ(dummy_config("qwen2.5-7b-awq").architecture, "Qwen2ForCausalLM");
    EXPECT_EQ(dummy_config("qwen2.5-7b").vocab_size, 152064);
    const ModelConfig q8 = dummy_config("qwen3-8b");
    EXPECT_EQ(q8.architecture, "Qwen3ForCausalLM");
    EXPECT_EQ(q8.head_dim, 128);
}

}  // namespace
}  // namespace folio
