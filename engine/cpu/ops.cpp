#include "engine/cpu/ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/core/thread_pool.h"
#include "engine/cpu/kernels.h"

namespace folio::cpu {

void rms_norm(const float* x, const float* w, float* out, int n, int dim, float eps) {
    for (int i = 0; i < n; ++i) {
        const float* xi = x + size_t(i) * dim;
        float ss = 0.0f;
        for (int d = 0; d < dim; ++d) ss += xi[d] * xi[d];
        const float inv = 1.0f / std::sqrt(ss / float(dim) + eps);
        float* oi = out + size_t(i) * dim;
        for (int d = 0; d < dim; ++d) oi[d] = (xi[d] * inv) * w[d];
    }
}

void rope(float* x, int n, int num_heads, int head_dim, const int32_t* positions, const float* inv_freq) {
    const int half = head_dim / 2;
    std::vector<float> cs(static_cast<size_t>(half)), sn(static_cast<size_t>(half));
    for (int t = 0; t < n; ++t) {
        for (int j = 0; j < half; ++j) {
            const float angle = float(positions[t]) * inv_freq[j];
            cs[size_t(j)] = std::cos(angle);
            sn[size_t(j)] = std::sin(angle);
        }
        for (int h = 0; h < num_heads; ++h) {
            float* v = x + (size_t(t) * num_heads + size_t(h)) * head_dim;
            for (int j = 0; j < half; ++j) {
                const float x1 = v[j], x2 = v[j + half];
                v[j] = x1 * cs[size_t(j)] - x2 * sn[size_t(j)];
                v[j + half] = x2 * cs[size_t(j)] + x1 * sn[size_t(j)];
            }
        }
    }
}

void silu_mul(const float* gate, const float* up, float* out, int64_t n) { kernels().silu_mul(gate, up, out, n); }

void linear(const Linear& w, const float* x, int m, float* y, ThreadPool& pool) {
    const KernelTable& k = kernels();
    if (w.kind == Linear::Kind::Dense || w.kind == Linear::Kind::Fp8) {
        // Disjoint row ranges per task: each thread streams its own part of the weights.
        const int64_t grain = std::max<int64_t>(4, int64_t(w.out) / (int64_t(pool.size()) * 8));
        pool.parallel_for(w.out, (grain + 3) & ~int64_t(3), [&](int64_t b, int64_t e) {
            if (w.kind == Linear::Kind::Fp8) k.fp8_rows(w.fp8, int(b), int(e), x, m, y);
            else k.dense_rows(w.dense, int(b), int(e), x, m, y);
        });
    } else {
        const int64_t tiles = w.out / 8;
        const int64_t grain = std::max<int64_t>(8, tiles / (int64_t(pool.size()) * 8));
        pool.parallel_for(tiles, grain, [&](int64_t b, int64_t e) { k.awq_cols(w.awq, int(b * 8), int(e * 8), x, m, y); });
    }
}

void write_kv(const float* k, const float* v, int num_tokens, int context_before, const KvLayout& layout,
              float* k_pool, float* v_pool, const int32_t* block_table) {
    const int hd = layout.head_dim;
    for (int t = 0; t < num_tokens; ++t) {
        const int pos = context_before + t;
        const int64_t block = block_table[pos / layout.block_size];
        const int slot = pos % layout.block_size;
        for (int h = 0; h < layout.num_kv_heads; ++h) {
            const int64_t off = layout.offset(block, h, slot);
            const size_t src = (size_t(t) * layout.num_kv_heads + size_t(h)) * hd;
            std::copy(k + src, k + src + hd, k_pool + off);
            std::copy(v + src, v + src + hd, v_pool + off);
        }
    }
}

void attention_head(const float* q, float* out, int num_keys, int kv_head, const KvLayout& layout, const float* k_pool,
                    const float* v_pool, const int32_t* block_table, float scale, std::vector<float>& scores, int first_key) {
    // The backend's kernel, so that the reference and the backend agree bit for bit.
    scores.resize(size_t(num_keys));
    kernels().attention_row(q, out, first_key, num_keys, kv_head, layout, k_pool, v_pool, block_table, scale, scores.data());
}

void paged_attention(const float* q, float* out, int num_tokens, int context_before, int num_heads,
                     const KvLayout& layout, const float* k_pool, const float* v_pool,
                     const int32_t* block_table, float scale, int sliding_window) {
    const int group = num_heads / layout.num_kv_heads;
    std::vector<float> scores;
    for (int t = 0; t < num_tokens; ++t)
        for (int h = 0; h < num_heads; ++h) {
            const size_t row = (size_t(t) * num_heads + size_t(h)) * layout.head_dim;
            const int pos = context_before + t;
            attention_head(q + row, out + row, pos + 1, h / group, layout, k_pool, v_pool, block_table, scale, scores,
                           first_attended_key(pos, sliding_window));
        }
}

}  // namespace folio::cpu
