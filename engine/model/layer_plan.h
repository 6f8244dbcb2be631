#pragma once
// One description of the network that every backend executes: the embedding, then per decoder layer
// an ordered list of steps with their weights and options, then the final norm and lm_head. An
// architecture's plan function (architectures.h) writes it from the config and the weights; the CPU
// backend runs the steps one by one, the CUDA backend turns them into its launches (fusing adjacent
// steps where its kernels allow it). Neither backend has a decoder layer of its own, so a family that
// only combines these steps differently is one plan function, and a new kind of step is added here and
// to both backends at once.
//
// Steps name no buffers: each reads and writes the activations of the step's T tokens listed here
// (a backend lays them out as it likes; the CUDA backend keeps q, k and v side by side):
//   residual [T, hidden]             the residual stream
//   normed   [T, hidden]             the last RmsNorm's output: the projections' input
//   q [T, heads, head_dim], k and v [T, kv_heads, head_dim]
//   attn     [T, heads * head_dim]   attention's output
//   out      [T, hidden]             a sublayer's output (o_proj, the MLP's down_proj)
//
// Weights are named through the plan's two tables (a linear or a tensor and its checkpoint name), in
// the order a step reads them. What kind of linear an entry is (dense fp32/fp16/bf16, AWQ int4, FP8,
// ...) is not the plan's business: each backend prepares every linear through its own linear layer
// (engine/cpu/cpu_linear.h, kernels/linear_runner.h).
#include <string>
#include <variant>
#include <vector>

#include "engine/model/weights.h"

namespace folio {

struct LinearRef {
    int index = -1;  // into ModelPlan::linears
};
struct TensorRef {
    int index = -1;  // into ModelPlan::tensors; -1: none
    bool present() const { return index >= 0; }
};

// normed = x / sqrt(mean(x^2) + eps) * weight, x a residual row (HF LlamaRMSNorm, in fp32).
struct RmsNorm {
    TensorRef weight;  // [hidden]
    float eps = 1e-6f;
};

// q, k, v = normed . W^T (+ bias: Qwen2's q/k/v biases).
struct QkvProjection {
    LinearRef q, k, v;
    TensorRef q_bias, k_bias, v_bias;  // [heads * head_dim], [kv_heads * head_dim]; absent in Llama
};

// Each head of q and of k RMS-normalised over head_dim with its own weight (Qwen3), before RoPE.
struct HeadNorm {
    TensorRef q_weight, k_weight;  // [head_dim]
    float eps = 1e-6f;
};

// rotate_half RoPE of q and k: token at position p turned by angles p * inv_freq[j] (engine/model/rope.h).
struct Rope {
    int table = 0;  // ModelPlan::rope_tables[table]
};

// The layer's k and v rows join its KV cache; attn = causal softmax(q . K^T * scale) V over the
// cached keys, GQA (query head h reads KV head h / (heads / kv_heads)). With window W > 0 the query
// at position p attends keys max(0, p - W + 1) .. p only (first_attended_key, engine/kv/kv_layout.h).
struct Attention {
    float scale = 1.0f;  // 1 / sqrt(head_dim) unless the family says otherwise
    int window = 0;
};

// out = attn . W_o^T
struct OutProjection {
    LinearRef o;
};

// residual += out
struct ResidualAdd {};

enum class Activation { Silu };  // silu(g) = g / (1 + exp(-g))

// out = down(act(normed . gate^T) * (normed . up^T))
struct GatedMlp {
    LinearRef gate, up, down;
    Activation act = Activation::Silu;
};

using LayerStep = std::variant<RmsNorm, QkvProjection, HeadNorm, Rope, Attention, OutProjection, ResidualAdd, GatedMlp>;

// A step's name in messages ("q/k/v projection", "head norm", ...).
const char* step_name(const LayerStep& step);

struct LayerPlan {
    std::vector<LayerStep> steps;
};

struct NamedLinear {
    std::string name;  // the checkpoint module, e.g. "model.layers.0.self_attn.q_proj"
    const Linear* linear = nullptr;
};
struct NamedTensor {
    std::string name;  // the checkpoint tensor, e.g. "model.layers.0.input_layernorm.weight"
    const FloatTensor* tensor = nullptr;
};

struct ModelPlan {
    std::string architecture;  // config.json's, for messages
    TensorRef embed;           // residual = embed[token]   [vocab, hidden]
    std::vector<LayerPlan> layers;
    // On the last row of each sequence that wants logits: normed = final_norm(residual), then fp32
    // logits = normed . lm_head^T   [rows, vocab] (vocab as config.json says, which may exceed the
    // tokenizer's: those ids are padding).
    RmsNorm final_norm;
    LinearRef lm_head;
    // Logits of ids at or past this are -inf, so no sampler can pick them: the embedding rows past the
    // tokenizer's last id (Qwen pads 151669 tokens to 151936 rows), which decode to nothing.
    int sampled_vocab = 0;
    bool tied_embeddings = false;  // lm_head is a view of the embedding table
    std::vector<std::vector<float>> rope_tables;  // inv_freq [head_dim / 2] each
    // The window by which the engine may release KV blocks (attention_window(config)): every layer's
    // Attention::window is at most this (0: no block is ever released).
    int kv_window = 0;

    std::vector<NamedLinear> linears;  // every linear, in the order a step runs them (lm_head last)
    std::vector<NamedTensor> tensors;  // norm weights, biases, the embedding table

    LinearRef add_linear(std::string name, const Linear& linear);
    TensorRef add_tensor(std::string name, const FloatTensor& tensor);
    const Linear& linear(LinearRef r) const { return *linears[size_t(r.index)].linear; }
    const FloatTensor& tensor(TensorRef r) const { return *tensors[size_t(r.index)].tensor; }
    const std::string& name(LinearRef r) const { return linears[size_t(r.index)].name; }
    const std::string& name(TensorRef r) const { return tensors[size_t(r.index)].name; }
};

// A refusal a backend gives for a plan it cannot run: names the backend, the architecture, the layer,
// the step and the option, and what to do instead ("CPU backend: Qwen2ForCausalLM layer 0 q/k/v
// projection: biases are not supported yet ...").
[[noreturn]] void refuse_plan(const std::string& backend, const ModelPlan& plan, int layer, const LayerStep& step,
                              const std::string& what);

}  // namespace folio
