#pragma once
// Loads a fixture model's config and weights without a tokenizer (the CPU tests feed token ids).
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/model/checkpoint.h"
#include "engine/model/model.h"
#include "engine/model/weights_loader.h"
#include "tests/support/exact_engine.h"  // exact_cpu

namespace folio::test {

inline std::unique_ptr<Model> load_weights_only(const std::string& dir) {
    auto m = std::make_unique<Model>();
    m->spec = dir;
    m->name = dir;
    m->config = load_model_config(dir);
    Checkpoint ck(dir);
    m->weights = load_weights(ck, m->config);
    return m;
}

// Teacher-forced logits of every position of `tokens` (fed one position at a time into a fresh
// 8-block KV pool: at most 128 tokens), concatenated; what the 4-bit path tests compare.
inline std::vector<float> all_logits(Backend& b, const Model& m, const std::vector<int32_t>& tokens) {
    b.allocate_kv(KvLayout{m.config.num_layers, m.config.num_kv_heads, m.config.head_dim, 16, 8});
    std::vector<float> out, logits;
    for (size_t i = 0; i < tokens.size(); ++i) {
        ForwardBatch batch;
        batch.tokens = {tokens[i]};
        batch.block_tables = {0, 1, 2, 3, 4, 5, 6, 7};
        batch.seqs.push_back(SeqSlice{0, 0, 1, int(i), 0, int(i) / 16 + 1, true});
        b.forward(batch, logits);
        out.insert(out.end(), logits.begin(), logits.end());
    }
    return out;
}

}  // namespace folio::test
