#include "engine/model/qwen_plan.h"

#include "engine/core/error.h"
#include "engine/model/llama_plan.h"

namespace folio {

namespace {

// Both families are Llama's plan with one change to the attention block: find its q/k/v step.
size_t qkv_step(const LayerPlan& layer) {
    for (size_t i = 0; i < layer.steps.size(); ++i)
        if (std::holds_alternative<QkvProjection>(layer.steps[i])) return i;
    throw Error("internal: a Llama layer plan without a q/k/v projection");
}

std::string layer_prefix(size_t i) { return "model.layers." + std::to_string(i) + ".self_attn."; }

}  // namespace

ModelPlan plan_qwen2(const ModelConfig& c, const ModelWeights& w) {
    ModelPlan p = plan_llama(c, w);
    for (size_t i = 0; i < p.layers.size(); ++i) {
        const LayerWeights& L = w.layers[i];
        auto& qkv = std::get<QkvProjection>(p.layers[i].steps[qkv_step(p.layers[i])]);
        const std::string n = layer_prefix(i);
        qkv.q_bias = p.add_tensor(n + "q_proj.bias", L.q_bias);
        qkv.k_bias = p.add_tensor(n + "k_proj.bias", L.k_bias);
        qkv.v_bias = p.add_tensor(n + "v_proj.bias", L.v_bias);
    }
    return p;
}

ModelPlan plan_qwen3(const ModelConfig& c, const ModelWeights& w) {
    ModelPlan p = plan_llama(c, w);
    for (size_t i = 0; i < p.layers.size(); ++i) {
        const LayerWeights& L = w.layers[i];
        auto& steps = p.layers[i].steps;
        const std::string n = layer_prefix(i);
        const HeadNorm norm{p.add_tensor(n + "q_norm.weight", L.q_norm), p.add_tensor(n + "k_norm.weight", L.k_norm), c.rms_norm_eps};
        steps.insert(steps.begin() + std::ptrdiff_t(qkv_step(p.layers[i]) + 1), norm);
    }
    return p;
}

}  // namespace folio
