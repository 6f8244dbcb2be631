#include "support/window_reference.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/core/thread_pool.h"
#include "engine/cpu/ops.h"
#include "engine/model/model.h"
#include "engine/model/rope.h"

namespace folio::test {

void windowed_paged_attention(const float* q, float* out, int num_tokens, int context_before, int num_heads,
                              const KvLayout& layout, const float* k_pool, const float* v_pool, const int32_t* block_table,
                              float scale, int window) {
    const int D = layout.head_dim, group = num_heads / layout.num_kv_heads;
    std::vector<double> scores;
    for (int t = 0; t < num_tokens; ++t) {
        const int pos = context_before + t;
        const int first = window > 0 ? std::max(0, pos - window + 1) : 0;
        for (int h = 0; h < num_heads; ++h) {
            const float* qr = q + (size_t(t) * num_heads + h) * D;
            const int kvh = h / group;
            auto row = [&](const float* pool, int p) {
                return pool + layout.offset(block_table[p / layout.block_size], kvh, p % layout.block_size);
            };
            scores.assign(size_t(pos - first + 1), 0.0);
            double mx = -INFINITY;
            for (int p = first; p <= pos; ++p) {
                const float* kr = row(k_pool, p);
                double dot = 0;
                for (int d = 0; d < D; ++d) dot += double(qr[d]) * kr[d];
                scores[size_t(p - first)] = dot * scale;
                mx = std::max(mx, scores[size_t(p - first)]);
            }
            double sum = 0;
            for (double& s : scores) sum += (s = std::exp(s - mx));
            float* o = out + (size_t(t) * num_heads + h) * D;
            for (int d = 0; d < D; ++d) {
                double acc = 0;
                for (int p = first; p <= pos; ++p) acc += scores[size_t(p - first)] * row(v_pool, p)[d];
                o[d] = float(acc / sum);
            }
        }
    }
}

std::vector<float> windowed_reference_logits(const Model& model, const std::vector<int>& tokens, int window) {
    const ModelConfig& c = model.config;
    const ModelWeights& w = model.weights;
    const int T = int(tokens.size()), H = c.hidden_size, I = c.intermediate_size, D = c.head_dim;
    const int qd = c.num_heads * D, kvd = c.num_kv_heads * D;
    ThreadPool pool(1);
    KvLayout layout{1, c.num_kv_heads, D, 16, (T + 15) / 16};
    std::vector<int32_t> table(size_t(layout.num_blocks));
    std::iota(table.begin(), table.end(), 0);
    std::vector<float> kp(size_t(layout.num_blocks * layout.block_elems())), vp(kp.size());
    std::vector<int32_t> positions(static_cast<size_t>(T));
    std::iota(positions.begin(), positions.end(), 0);
    const std::vector<float> inv_freq = rope_inv_freq(c);
    auto to_f32 = [](const FloatTensor& t) {
        std::vector<float> v(size_t(t.numel()));
        row_to_f32(t, 0, t.numel(), v.data());
        return v;
    };

    std::vector<float> x(size_t(T) * H), xn(x.size()), q(size_t(T) * qd), k(size_t(T) * kvd), v(k.size()), attn(q.size()),
        proj(x.size()), gate(size_t(T) * I), up(gate.size());
    for (int t = 0; t < T; ++t) row_to_f32(w.embed_tokens, tokens[size_t(t)], H, &x[size_t(t) * H]);
    for (const LayerWeights& L : w.layers) {
        cpu::rms_norm(x.data(), to_f32(L.input_norm).data(), xn.data(), T, H, c.rms_norm_eps);
        cpu::linear(L.q_proj, xn.data(), T, q.data(), pool);
        cpu::linear(L.k_proj, xn.data(), T, k.data(), pool);
        cpu::linear(L.v_proj, xn.data(), T, v.data(), pool);
        cpu::rope(q.data(), T, c.num_heads, D, positions.data(), inv_freq.data());
        cpu::rope(k.data(), T, c.num_kv_heads, D, positions.data(), inv_freq.data());
        cpu::write_kv(k.data(), v.data(), T, 0, layout, kp.data(), vp.data(), table.data());
        windowed_paged_attention(q.data(), attn.data(), T, 0, c.num_heads, layout, kp.data(), vp.data(), table.data(),
                                 1.0f / std::sqrt(float(D)), window);
        cpu::linear(L.o_proj, attn.data(), T, proj.data(), pool);
        for (size_t i = 0; i < x.size(); ++i) x[i] += proj[i];
        cpu::rms_norm(x.data(), to_f32(L.post_attention_norm).data(), xn.data(), T, H, c.rms_norm_eps);
        cpu::linear(L.gate_proj, xn.data(), T, gate.data(), pool);
        cpu::linear(L.up_proj, xn.data(), T, up.data(), pool);
        cpu::silu_mul(gate.data(), up.data(), gate.data(), int64_t(T) * I);
        cpu::linear(L.down_proj, gate.data(), T, proj.data(), pool);
        for (size_t i = 0; i < x.size(); ++i) x[i] += proj[i];
    }
    cpu::rms_norm(x.data(), to_f32(w.final_norm).data(), xn.data(), T, H, c.rms_norm_eps);
    std::vector<float> logits(size_t(T) * c.vocab_size);
    cpu::linear(w.lm_head, xn.data(), T, logits.data(), pool);
    return logits;
}

}  // namespace folio::test
