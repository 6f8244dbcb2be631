#include "engine/cpu/cpu_kv_cache.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/backend/forward_batch.h"
#include "engine/core/error.h"
#include "engine/core/fp8.h"
#include "engine/cpu/ops.h"

namespace folio::cpu {

namespace {

constexpr int kMaxFp8HeadDim = 512;  // the FP8 attention kernels' row buffer (kernels_fp8.inc)

}  // namespace

void KvCache::allocate(const KvLayout& layout, const ModelWeights& weights, bool calibrate) {
    if (is_fp8(layout.dtype) && layout.head_dim > kMaxFp8HeadDim)
        throw Error("CPU backend: an FP8 KV cache supports head_dim up to " + std::to_string(kMaxFp8HeadDim) + ", this model has " +
                    std::to_string(layout.head_dim) + "; use --kv-cache-dtype auto");
    layout_ = layout;
    elem_ = layout.element_bytes(sizeof(float));
    const size_t per_layer = size_t(layout.num_blocks) * size_t(layout.block_elems()) * elem_;
    k_.assign(size_t(layout.num_layers), {});
    v_.assign(size_t(layout.num_layers), {});
    for (int l = 0; l < layout.num_layers; ++l) {
        k_[size_t(l)].assign(per_layer, 0);
        v_[size_t(l)].assign(per_layer, 0);
    }
    k_scale_.assign(size_t(layout.num_layers), 1.0f);
    v_scale_.assign(size_t(layout.num_layers), 1.0f);
    for (int l = 0; l < layout.num_layers && l < int(weights.layers.size()); ++l) {
        k_scale_[size_t(l)] = weights.layers[size_t(l)].k_scale;
        v_scale_[size_t(l)] = weights.layers[size_t(l)].v_scale;
    }
    calibrate_ = calibrate && is_fp8(layout.dtype);
    calibrated_.assign(size_t(layout.num_layers), false);
}

void KvCache::calibrate(int layer, const float* k, const float* v, size_t n) {
    float km = 0.0f, vm = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        km = std::max(km, std::fabs(k[i]));
        vm = std::max(vm, std::fabs(v[i]));
    }
    // An all-zero batch (or one without finite values) says nothing about the range: keep 1.0.
    if (std::isfinite(km) && km > 0.0f) k_scale_[size_t(layer)] = km / kKvScaleKRange;
    if (std::isfinite(vm) && vm > 0.0f) v_scale_[size_t(layer)] = vm / kKvScaleVRange;
    calibrated_[size_t(layer)] = true;
}

void KvCache::write(int layer, const float* k, const float* v, const std::vector<SeqSlice>& seqs, const int32_t* block_tables) {
    const int hd = layout_.head_dim, heads = layout_.num_kv_heads;
    const size_t row = size_t(heads) * hd;
    uint8_t* kp = k_[size_t(layer)].data();
    uint8_t* vp = v_[size_t(layer)].data();
    if (!is_fp8(layout_.dtype)) {
        for (const auto& seq : seqs)
            write_kv(k + size_t(seq.token_offset) * row, v + size_t(seq.token_offset) * row, seq.num_tokens, seq.context_before, layout_,
                     reinterpret_cast<float*>(kp), reinterpret_cast<float*>(vp), block_tables + seq.block_table_offset);
        return;
    }
    if (calibrate_ && !calibrated_[size_t(layer)]) {
        size_t tokens = 0;
        for (const auto& seq : seqs) tokens = std::max(tokens, size_t(seq.token_offset + seq.num_tokens));
        calibrate(layer, k, v, tokens * row);
    }
    const bool e5m2 = layout_.dtype == KvCacheDtype::Fp8E5M2;
    const float ks = k_scale_[size_t(layer)], vs = v_scale_[size_t(layer)];
    const auto encode = [e5m2](float x) { return e5m2 ? f32_to_fp8_e5m2(x) : f32_to_fp8_e4m3(x); };
    for (const auto& seq : seqs) {
        const int32_t* table = block_tables + seq.block_table_offset;
        for (int t = 0; t < seq.num_tokens; ++t) {
            const int pos = seq.context_before + t;
            const int64_t block = table[pos / layout_.block_size];
            const int slot = pos % layout_.block_size;
            const float* ks_row = k + size_t(seq.token_offset + t) * row;
            const float* vs_row = v + size_t(seq.token_offset + t) * row;
            for (int h = 0; h < heads; ++h) {
                const int64_t off = layout_.offset(block, h, slot);
                for (int d = 0; d < hd; ++d) {
                    kp[off + d] = encode(ks_row[size_t(h) * hd + d] / ks);
                    vp[off + d] = encode(vs_row[size_t(h) * hd + d] / vs);
                }
            }
        }
    }
}

void KvCache::attention_rows(int layer, const float* const* q, float* const* out, const int* first_key, const int* num_keys, int rows,
                             int kv_head, const int32_t* block_table, float scale, float* scores) const {
    const KernelTable& kt = kernels();
    const uint8_t* kp = k_[size_t(layer)].data();
    const uint8_t* vp = v_[size_t(layer)].data();
    if (!is_fp8(layout_.dtype)) {
        kt.attention_rows(q, out, first_key, num_keys, rows, kv_head, layout_, reinterpret_cast<const float*>(kp),
                          reinterpret_cast<const float*>(vp), block_table, scale, scores);
        return;
    }
    const Fp8KvPools pools{kp, vp, k_scale_[size_t(layer)], v_scale_[size_t(layer)], layout_.dtype == KvCacheDtype::Fp8E5M2};
    kt.attention_rows_fp8(q, out, first_key, num_keys, rows, kv_head, layout_, pools, block_table, scale, scores);
}

void KvCache::copy_blocks(const std::vector<std::pair<int32_t, int32_t>>& src_dst) {
    const size_t n = size_t(layout_.block_elems()) * elem_;
    for (int l = 0; l < layout_.num_layers; ++l)
        for (const auto& [src, dst] : src_dst) {
            std::memcpy(k_[size_t(l)].data() + size_t(dst) * n, k_[size_t(l)].data() + size_t(src) * n, n);
            std::memcpy(v_[size_t(l)].data() + size_t(dst) * n, v_[size_t(l)].data() + size_t(src) * n, n);
        }
}

}  // namespace folio::cpu
