// The CUDA backend's launches come from the model's plan: Llama's layer becomes the fused sequence
// the kernels were written for (norm with the residual add, one q|k|v product, RoPE with the KV
// write, attention, o_proj, norm, one gate|up product, SiLU*up, down), and every step, option or
// order the kernels cannot run is refused at load, naming the architecture, layer, step and option.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/model/architectures.h"
#include "engine/model/dummy_model.h"
#include "kernels/launch_plan.h"

namespace folio::cuda {
namespace {

struct Tiny {
    ModelConfig config = dummy_config("tiny");
    ModelWeights weights = dummy_weights(config, 5);
    ModelPlan plan() const { return plan_model(config, weights); }
};

std::string refusal(const ModelPlan& plan) {
    try {
        plan_launches(plan);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

void expect_refused(const ModelPlan& plan, const std::string& expected) {
    const std::string msg = refusal(plan);
    EXPECT_EQ(msg.rfind(expected, 0), 0u) << "got: " << msg << "\nexpected it to start with: " << expected;
}

TEST(LaunchPlan, LlamaLayersBecomeTheFusedLaunchSequence) {
    Tiny m;
    m.config.architecture = "MistralForCausalLM";
    m.config.sliding_window = 64;
    const ModelPlan p = m.plan();
    const LaunchPlan lp = plan_launches(p);
    using Op = Launch::Op;
    const std::vector<Op> layer_ops = {Op::Norm, Op::Linear, Op::RopeWriteKv, Op::Attention, Op::Linear,
                                       Op::Norm, Op::Linear, Op::SiluMul,     Op::Linear};
    ASSERT_EQ(lp.launches.size(), layer_ops.size() * size_t(m.config.num_layers));
    for (int l = 0; l < m.config.num_layers; ++l) {
        const Launch* k = &lp.launches[size_t(l) * layer_ops.size()];
        for (size_t i = 0; i < layer_ops.size(); ++i) {
            EXPECT_EQ(k[i].op, layer_ops[i]) << "layer " << l << " launch " << i;
            EXPECT_EQ(k[i].layer, l);
        }
        const LayerPlan& layer = p.layers[size_t(l)];
        const auto& qkv = std::get<QkvProjection>(layer.steps[1]);
        const auto& mlp = std::get<GatedMlp>(layer.steps[7]);
        // The first norm adds nothing; every other norm applies the residual add before it.
        EXPECT_EQ(k[0].add_residual, l > 0);
        EXPECT_EQ(k[0].norm.index, std::get<RmsNorm>(layer.steps[0]).weight.index);
        EXPECT_EQ(k[0].eps, m.config.rms_norm_eps);
        EXPECT_EQ(k[0].weight, 2 * l);
        EXPECT_TRUE(k[5].add_residual);
        EXPECT_EQ(k[5].norm.index, std::get<RmsNorm>(layer.steps[6]).weight.index);
        EXPECT_EQ(k[5].weight, 2 * l + 1);
        // Linears: q|k|v from normed to qkv, o from attn to proj, gate|up from normed, down from act.
        const std::vector<std::vector<int>> parts = {
            {qkv.q.index, qkv.k.index, qkv.v.index}, {std::get<OutProjection>(layer.steps[4]).o.index}, {mlp.gate.index, mlp.up.index}, {mlp.down.index}};
        const size_t at[] = {1, 4, 6, 8};
        const StepBuffer ins[] = {StepBuffer::Normed, StepBuffer::Attn, StepBuffer::Normed, StepBuffer::Act};
        const StepBuffer outs[] = {StepBuffer::Qkv, StepBuffer::Proj, StepBuffer::GateUp, StepBuffer::Proj};
        for (size_t j = 0; j < 4; ++j) {
            const Launch& lin = k[at[j]];
            std::vector<int> got;
            for (LinearRef r : lin.parts) got.push_back(r.index);
            EXPECT_EQ(got, parts[j]) << "layer " << l << " linear " << j;
            EXPECT_EQ(lin.in, ins[j]);
            EXPECT_EQ(lin.out, outs[j]);
            EXPECT_EQ(lin.weight, 4 * l + int(j));
        }
        EXPECT_EQ(k[2].rope_table, 0);
        EXPECT_EQ(k[3].scale, std::get<Attention>(layer.steps[3]).scale);
        EXPECT_EQ(k[3].window, 64);
    }
    EXPECT_TRUE(lp.final_add_residual);  // the last layer's add happens in the final norm
    EXPECT_EQ(lp.final_eps, m.config.rms_norm_eps);
    EXPECT_EQ(lp.num_norms, 2 * m.config.num_layers);
    EXPECT_EQ(lp.num_linears, 4 * m.config.num_layers);
}

// Qwen2: the biases follow the fused q|k|v product as one launch over the three side by side.
// Qwen3: the head norms run between that product and the RoPE/KV write. Both mask the padded vocabulary.
TEST(LaunchPlan, QwenLayersAddTheirBiasAndHeadNormLaunches) {
    using Op = Launch::Op;
    for (const char* arch : {"Qwen2ForCausalLM", "Qwen3ForCausalLM"}) {
        SCOPED_TRACE(arch);
        Tiny m;
        m.config.architecture = arch;
        m.config.decodable_vocab = m.config.vocab_size - 7;
        m.weights = dummy_weights(m.config, 5);
        const ModelPlan p = m.plan();
        const LaunchPlan lp = plan_launches(p);
        const bool qwen2 = std::string(arch) == "Qwen2ForCausalLM";
        const std::vector<Op> layer_ops = {Op::Norm,    Op::Linear, qwen2 ? Op::QkvBias : Op::HeadNorm,
                                           Op::RopeWriteKv, Op::Attention, Op::Linear, Op::Norm, Op::Linear, Op::SiluMul, Op::Linear};
        ASSERT_EQ(lp.launches.size(), layer_ops.size() * size_t(m.config.num_layers));
        for (int l = 0; l < m.config.num_layers; ++l) {
            const Launch* k = &lp.launches[size_t(l) * layer_ops.size()];
            for (size_t i = 0; i < layer_ops.size(); ++i) EXPECT_EQ(k[i].op, layer_ops[i]) << "layer " << l << " launch " << i;
            EXPECT_EQ(k[2].weight, l);
            const std::string n = "model.layers." + std::to_string(l) + ".self_attn.";
            if (qwen2) {
                ASSERT_EQ(k[2].tensors.size(), 3u);
                EXPECT_EQ(p.name(k[2].tensors[0]), n + "q_proj.bias");
                EXPECT_EQ(p.name(k[2].tensors[2]), n + "v_proj.bias");
                const int hd = m.config.head_dim;
                EXPECT_EQ(k[2].widths, (std::vector<int>{m.config.num_heads * hd, m.config.num_kv_heads * hd, m.config.num_kv_heads * hd}));
            } else {
                ASSERT_EQ(k[2].tensors.size(), 2u);
                EXPECT_EQ(p.name(k[2].tensors[0]), n + "q_norm.weight");
                EXPECT_EQ(p.name(k[2].tensors[1]), n + "k_norm.weight");
                EXPECT_EQ(k[2].eps, m.config.rms_norm_eps);
            }
        }
        EXPECT_EQ(qwen2 ? lp.num_qkv_biases : lp.num_head_norms, m.config.num_layers);
        EXPECT_EQ(qwen2 ? lp.num_head_norms : lp.num_qkv_biases, 0);
        EXPECT_EQ(lp.sampled_vocab, m.config.vocab_size - 7);
    }
}

TEST(LaunchPlan, RefusesWhatTheKernelsDoNotRunByName) {
    const Tiny m;
    const ModelPlan llama = m.plan();
    {
        ModelPlan p = llama;  // a head norm with no q/k/v projection before it in its layer
        p.architecture = "Qwen3ForCausalLM";
        const TensorRef t = p.add_tensor("model.layers.3.self_attn.q_norm.weight", m.weights.final_norm);
        p.layers[3].steps.insert(p.layers[3].steps.begin() + 1, HeadNorm{t, t, 1e-6f});
        expect_refused(p, "CUDA backend: Qwen3ForCausalLM layer 3, q/k head norm: the CUDA kernels normalise the q and k heads");
    }
    {
        ModelPlan p = llama;  // one layer with a window of its own
        p.kv_window = 128;
        for (LayerPlan& layer : p.layers) std::get<Attention>(layer.steps[3]).window = 128;
        EXPECT_EQ(refusal(p), "");
        std::get<Attention>(p.layers[1].steps[3]).window = 32;
        expect_refused(p, "CUDA backend: LlamaForCausalLM layer 1, attention: a sliding window of 32 keys differs from the model's (128)");
    }
    {
        ModelPlan p = llama;  // RoPE apart from attention
        std::swap(p.layers[0].steps[2], p.layers[0].steps[1]);
        expect_refused(p, "CUDA backend: LlamaForCausalLM layer 0, q/k/v projection: the CUDA kernels rotate q and k as they write");
    }
    {
        ModelPlan p = llama;  // attention with no RoPE
        p.layers[2].steps.erase(p.layers[2].steps.begin() + 2);
        expect_refused(p, "CUDA backend: LlamaForCausalLM layer 2, attention: attention without a rotary embedding");
    }
    {
        ModelPlan p = llama;  // a residual add whose sublayer output the next product would overwrite
        p.layers[0].steps.erase(p.layers[0].steps.begin() + 6);
        expect_refused(p, "CUDA backend: LlamaForCausalLM layer 0, gated MLP: a residual add must be followed by an RMS norm");
    }
    {
        ModelPlan p = llama;
        p.layers[1].steps.insert(p.layers[1].steps.begin() + 5, ResidualAdd{});
        expect_refused(p, "CUDA backend: LlamaForCausalLM layer 1, residual add: two residual adds");
    }
}

}  // namespace
}  // namespace folio::cuda
