#include "engine/model/architectures.h"

#include "engine/core/error.h"
#include "engine/model/llama_plan.h"
#include "engine/model/qwen_plan.h"

namespace folio {

const std::vector<Architecture>& architectures() {
    // vLLM and transformers run Mistral as Llama with a sliding window; so do we. Qwen2 and Qwen3
    // are Llama's layer with one change each (qwen_plan.h); their sliding_window field applies only
    // with use_sliding_window, which the config parser refuses.
    static const std::vector<Architecture> table = {
        {"LlamaForCausalLM", "llama", false, false, false, plan_llama},
        {"MistralForCausalLM", "mistral", true, false, false, plan_llama},
        {"Qwen2ForCausalLM", "qwen2", false, true, false, plan_qwen2},
        {"Qwen3ForCausalLM", "qwen3", false, false, true, plan_qwen3},
    };
    return table;
}

const Architecture* find_architecture(const std::string& name) {
    for (const Architecture& a : architectures())
        if (name == a.name) return &a;
    return nullptr;
}

const Architecture* find_architecture_by_model_type(const std::string& model_type) {
    for (const Architecture& a : architectures())
        if (model_type == a.model_type) return &a;
    return nullptr;
}

std::string architecture_names() {
    std::string s;
    for (const Architecture& a : architectures()) s += (s.empty() ? "" : ", ") + std::string(a.name);
    return s;
}

namespace {

// A plan function's slip (a reference outside the tables, a window the engine would release blocks
// under) would read the wrong memory in a backend: caught here, once, for every family.
void check_plan(const ModelPlan& p, const ModelConfig& config) {
    const int num_layers = config.num_layers;
    auto fail = [&](const std::string& what) { throw Error("the " + p.architecture + " plan is inconsistent: " + what); };
    // The engine frees KV blocks by attention_window(config) (runtime/engine_core.cpp); no layer may
    // read further back than that.
    if (p.kv_window != attention_window(config))
        fail("its KV window " + std::to_string(p.kv_window) + " is not the config's " + std::to_string(attention_window(config)));
    if (int(p.layers.size()) != num_layers)
        fail(std::to_string(p.layers.size()) + " layers planned for " + std::to_string(num_layers) + " in config.json");
    auto linear = [&](LinearRef r) {
        if (r.index < 0 || r.index >= int(p.linears.size())) fail("a step names linear " + std::to_string(r.index));
    };
    auto tensor = [&](TensorRef r, bool required) {
        if ((required || r.present()) && (r.index < 0 || r.index >= int(p.tensors.size())))
            fail("a step names tensor " + std::to_string(r.index));
    };
    tensor(p.embed, true);
    tensor(p.final_norm.weight, true);
    linear(p.lm_head);
    if (p.sampled_vocab <= 0 || p.sampled_vocab > config.vocab_size)
        fail("it samples " + std::to_string(p.sampled_vocab) + " of the " + std::to_string(config.vocab_size) + " logits");
    for (size_t l = 0; l < p.layers.size(); ++l)
        for (const LayerStep& step : p.layers[l].steps) {
            if (const auto* s = std::get_if<RmsNorm>(&step)) tensor(s->weight, true);
            if (const auto* s = std::get_if<QkvProjection>(&step)) {
                for (LinearRef r : {s->q, s->k, s->v}) linear(r);
                for (TensorRef r : {s->q_bias, s->k_bias, s->v_bias}) tensor(r, false);
            }
            if (const auto* s = std::get_if<HeadNorm>(&step)) tensor(s->q_weight, true), tensor(s->k_weight, true);
            if (const auto* s = std::get_if<Rope>(&step))
                if (s->table < 0 || s->table >= int(p.rope_tables.size())) fail("a step names rope table " + std::to_string(s->table));
            if (const auto* s = std::get_if<OutProjection>(&step)) linear(s->o);
            if (const auto* s = std::get_if<GatedMlp>(&step))
                for (LinearRef r : {s->gate, s->up, s->down}) linear(r);
            if (const auto* s = std::get_if<Attention>(&step))
                if (p.kv_window > 0 && (s->window <= 0 || s->window > p.kv_window))
                    fail("layer " + std::to_string(l) + " attends " + (s->window <= 0 ? "every key" : std::to_string(s->window) + " keys") +
                         " but the KV cache releases blocks outside a window of " + std::to_string(p.kv_window));
        }
}

}  // namespace

ModelPlan plan_model(const ModelConfig& config, const ModelWeights& weights) {
    const Architecture* a = find_architecture(config.architecture);
    if (!a) throw Error("unknown architecture \"" + config.architecture + "\": Folio runs " + architecture_names());
    if (int(weights.layers.size()) != config.num_layers)
        throw Error("the weights hold " + std::to_string(weights.layers.size()) + " layers but config.json says " +
                    std::to_string(config.num_layers));
    ModelPlan plan = a->plan(config, weights);
    check_plan(plan, config);
    return plan;
}

}  // namespace folio
