#include "engine/model/llama_plan.h"

#include <algorithm>
#include <cmath>

#include "engine/model/rope.h"

namespace folio {

ModelPlan plan_llama(const ModelConfig& c, const ModelWeights& w) {
    ModelPlan p;
    p.architecture = c.architecture;
    p.embed = p.add_tensor("model.embed_tokens.weight", w.embed_tokens);
    p.rope_tables.push_back(rope_inv_freq(c));
    p.kv_window = attention_window(c);
    const float scale = 1.0f / std::sqrt(float(c.head_dim));
    for (size_t i = 0; i < w.layers.size(); ++i) {
        const LayerWeights& L = w.layers[i];
        const std::string n = "model.layers." + std::to_string(i) + ".";
        LayerPlan layer;
        layer.steps.push_back(RmsNorm{p.add_tensor(n + "input_layernorm.weight", L.input_norm), c.rms_norm_eps});
        QkvProjection qkv;
        qkv.q = p.add_linear(n + "self_attn.q_proj", L.q_proj);
        qkv.k = p.add_linear(n + "self_attn.k_proj", L.k_proj);
        qkv.v = p.add_linear(n + "self_attn.v_proj", L.v_proj);
        layer.steps.push_back(qkv);
        layer.steps.push_back(Rope{0});
        layer.steps.push_back(Attention{scale, p.kv_window});
        layer.steps.push_back(OutProjection{p.add_linear(n + "self_attn.o_proj", L.o_proj)});
        layer.steps.push_back(ResidualAdd{});
        layer.steps.push_back(RmsNorm{p.add_tensor(n + "post_attention_layernorm.weight", L.post_attention_norm), c.rms_norm_eps});
        GatedMlp mlp;
        mlp.gate = p.add_linear(n + "mlp.gate_proj", L.gate_proj);
        mlp.up = p.add_linear(n + "mlp.up_proj", L.up_proj);
        mlp.down = p.add_linear(n + "mlp.down_proj", L.down_proj);
        mlp.act = Activation::Silu;
        layer.steps.push_back(mlp);
        layer.steps.push_back(ResidualAdd{});
        p.layers.push_back(std::move(layer));
    }
    p.final_norm = RmsNorm{p.add_tensor("model.norm.weight", w.final_norm), c.rms_norm_eps};
    // Tied: the loaders make lm_head a view of the embedding table (transformers uses it even when a
    // copy of lm_head is stored).
    p.tied_embeddings = w.lm_head.kind == Linear::Kind::Dense && w.lm_head.dense.data == w.embed_tokens.data;
    p.lm_head = p.add_linear(p.tied_embeddings ? "model.embed_tokens" : "lm_head", w.lm_head);
    p.sampled_vocab = c.decodable_vocab > 0 ? std::min(c.decodable_vocab, c.vocab_size) : c.vocab_size;
    return p;
}

}  // namespace folio
