// The CPU backend runs any plan made of the steps it knows (it executes each as layer_plan.h defines
// it) and refuses, at load and by name, the options of the next families it does not run yet.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/model/architectures.h"
#include "engine/model/dummy_model.h"

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

TEST(CpuPlan, RunsLlamaAndMistralAndRefusesBiasesAndHeadNormsByName) {
    ModelConfig c = dummy_config("tiny");
    const ModelWeights w = dummy_weights(c, 3);
    EXPECT_EQ(refusal(plan_model(c, w)), "");
    c.architecture = "MistralForCausalLM";
    c.sliding_window = 64;
    EXPECT_EQ(refusal(plan_model(c, w)), "");

    // Qwen2's q/k/v biases, as its plan function will write them.
    ModelPlan biased = plan_model(c, w);
    biased.architecture = "Qwen2ForCausalLM";
    std::get<QkvProjection>(biased.layers[1].steps[1]).v_bias = biased.add_tensor("model.layers.1.self_attn.v_proj.bias", w.final_norm);
    EXPECT_EQ(refusal(biased),
              "CPU backend: Qwen2ForCausalLM layer 1, q/k/v projection: projection biases are not supported yet (this version "
              "of Folio cannot run this model)");

    // Qwen3's per-head q/k norms, before RoPE.
    ModelPlan normed = plan_model(c, w);
    normed.architecture = "Qwen3ForCausalLM";
    const TensorRef t = normed.add_tensor("model.layers.0.self_attn.q_norm.weight", w.final_norm);
    auto& steps = normed.layers[0].steps;
    steps.insert(steps.begin() + 2, HeadNorm{t, t, 1e-6f});
    EXPECT_EQ(refusal(normed),
              "CPU backend: Qwen3ForCausalLM layer 0, q/k head norm: per-head q/k norms are not supported yet (this version of "
              "Folio cannot run this model)");
}

}  // namespace
}  // namespace folio
