#pragma once
// The CPU backend's paged KV cache: one K and one V pool per layer in KvLayout order, fp32 (the exact
// oracle) or FP8 with a k and v scale per layer (stored = fp8(x / scale), read = code * scale inside
// the attention kernels). The scales come from the checkpoint, else 1.0, or (calibrate) from the
// first batch that writes the cache: max |K| / 200 and max |V| / 100, as vLLM's calculate_kv_scales.
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/cpu/kernels.h"
#include "engine/kv/kv_layout.h"
#include "engine/model/weights.h"

namespace folio {
struct SeqSlice;
}

namespace folio::cpu {

class KvCache {
public:
    // Bytes of one block over all layers, K and V.
    static size_t bytes_per_block(const KvLayout& layout) { return layout.bytes_per_block(layout.element_bytes(sizeof(float))); }

    // Allocates layout.num_blocks blocks (zeroed). Scales per layer from `weights` (checkpoint or 1.0);
    // with `calibrate` the first write() replaces them. Throws folio::Error for an FP8 cache whose
    // head_dim the kernels do not take.
    void allocate(const KvLayout& layout, const ModelWeights& weights, bool calibrate);
    bool allocated() const { return !k_.empty(); }
    const KvLayout& layout() const { return layout_; }
    uint64_t bytes() const { return uint64_t(layout_.num_blocks) * bytes_per_block(layout_); }

    // Writes K and V rows ([tokens, num_kv_heads, head_dim]) of every sequence of a step into layer
    // `layer` through the block tables; k/v hold the step's rows in ForwardBatch order.
    void write(int layer, const float* k, const float* v, const std::vector<SeqSlice>& seqs, const int32_t* block_tables);

    // kernels().attention_rows over layer `layer`'s pools (the FP8 variant for an FP8 cache).
    void attention_rows(int layer, const float* const* q, float* const* out, const int* first_key, const int* num_keys, int rows,
                        int kv_head, const int32_t* block_table, float scale, float* scores) const;

    // Copy-on-write: whole blocks, every layer, K and V.
    void copy_blocks(const std::vector<std::pair<int32_t, int32_t>>& src_dst);

    float k_scale(int layer) const { return k_scale_[size_t(layer)]; }
    float v_scale(int layer) const { return v_scale_[size_t(layer)]; }

private:
    // Sets layer `layer`'s scales from this step's rows (calibration).
    void calibrate(int layer, const float* k, const float* v, size_t n);

    KvLayout layout_;
    size_t elem_ = sizeof(float);
    std::vector<std::vector<uint8_t>> k_, v_;  // per layer: num_blocks * block_elems * elem_ bytes
    std::vector<float> k_scale_, v_scale_;
    std::vector<bool> calibrated_;  // per layer, when calibrating
    bool calibrate_ = false;
};

}  // namespace folio::cpu
