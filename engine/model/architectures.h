#pragma once
// The model families Folio runs: one line per Hugging Face architecture name (config.json's
// "architectures"), saying how its config is read and which function writes its plan (layer_plan.h).
// The config parser accepts exactly these names, and both backends run what the plan function writes.
// A new family is a line here and a plan function (for example a file like llama_plan.cpp); only a
// kind of step or option neither backend runs yet needs work in the backends (engine/README.md).
#include <string>
#include <vector>

#include "engine/model/layer_plan.h"
#include "engine/model/model_config.h"

namespace folio {

struct Architecture {
    const char* name;        // config.json "architectures"[0], e.g. "LlamaForCausalLM"
    const char* model_type;  // config.json "model_type", e.g. "llama": names the family when "architectures" is absent
    // config.json's "sliding_window" applies to every layer's attention (transformers' Mistral); Llama's
    // attention ignores the field, which some Llama-architecture configs carry.
    bool honours_sliding_window;
    bool qkv_bias;    // q_proj, k_proj and v_proj carry biases whatever attention_bias says (Qwen2)
    bool head_norms;  // self_attn.q_norm / k_norm: per-head RMS norms of q and k before RoPE (Qwen3)
    ModelPlan (*plan)(const ModelConfig&, const ModelWeights&);
};

const std::vector<Architecture>& architectures();
const Architecture* find_architecture(const std::string& name);                // nullptr when unknown
const Architecture* find_architecture_by_model_type(const std::string& model_type);  // nullptr when unknown
std::string architecture_names();  // "LlamaForCausalLM, MistralForCausalLM", for messages

// The plan of a loaded model, by its architecture's plan function. Throws folio::Error when the
// architecture is not in the table or the weights do not match the config's layer count.
ModelPlan plan_model(const ModelConfig& config, const ModelWeights& weights);

}  // namespace folio
