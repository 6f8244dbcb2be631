#pragma once
// A test double for the backend: its "KV cache" stores (token, position) in every slot, written and
// read through the block tables exactly as a real backend does, and its logits come from a function
// of the whole context it reads back. So if a block table, a prefix hit or a copy-on-write were
// wrong, the sampled tokens would change. Also counts calls and can be told to fail.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/tokenizer/byte_tokenizer.h"

namespace folio::test {

using Context = std::vector<std::pair<int32_t, int32_t>>;  // (token, position) read back, in order

// Default "model": a lowercase letter from a hash of the whole context (byte tokenizer: id = byte + 3).
inline int32_t hashed_letter(const Context& ctx) {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (const auto& [t, p] : ctx) {
        h ^= uint64_t(uint32_t(t)) * 0xff51afd7ed558ccdULL + uint64_t(uint32_t(p));
        h *= 0xc4ceb9fe1a85ec53ULL;
        h ^= h >> 29;
    }
    return int32_t('a' + 3 + h % 26);
}

class FakeBackend final : public Backend {
public:
    using NextFn = std::function<int32_t(const Context&)>;
    explicit FakeBackend(int vocab, NextFn next = hashed_letter) : vocab_(vocab), next_(std::move(next)) {}

    std::string name() const override { return "fake"; }
    std::string device_name() const override { return "test double"; }
    size_t kv_bytes_per_block(const KvLayout& layout) const override { return size_t(layout.block_size) * 8; }
    int64_t plan_kv_blocks(const KvLayout& layout, uint64_t budget, int64_t min_blocks) const override {
        const int64_t blocks = budget ? int64_t(budget / kv_bytes_per_block(layout)) : 256;
        if (blocks < min_blocks) throw Error("fake backend: budget holds " + std::to_string(blocks) + " blocks, fewer than " + std::to_string(min_blocks));
        return blocks;
    }
    void allocate_kv(const KvLayout& layout) override {
        layout_ = layout;
        slots_.assign(size_t(layout.num_blocks * layout.block_size), {-1, -1});
    }
    void forward(const ForwardBatch& batch, std::vector<float>& logits) override {
        if (before_forward) before_forward();
        ++forwards;
        batch_seqs.push_back(int(batch.seqs.size()));
        batch_tokens.push_back(batch.num_tokens());
        if (fail_next_forward) {
            fail_next_forward = false;
            throw Error("injected device failure");
        }
        logits.assign(size_t(batch.num_logit_rows()) * size_t(vocab_), 0.0f);
        int row = 0;
        for (const SeqSlice& s : batch.seqs) {
            const int32_t* table = batch.block_tables.data() + s.block_table_offset;
            for (int i = 0; i < s.num_tokens; ++i) slot(table, s.context_before + i) = {batch.tokens[size_t(s.token_offset + i)], s.context_before + i};
            if (!s.want_logits) continue;
            Context ctx;
            for (int p = 0; p < s.context_before + s.num_tokens; ++p) ctx.push_back(slot(table, p));
            logits[size_t(row) * size_t(vocab_) + size_t(next_(ctx))] = 10.0f;
            ++row;
        }
    }
    void copy_blocks(const std::vector<std::pair<int32_t, int32_t>>& src_dst) override {
        for (const auto& [src, dst] : src_dst)
            for (int i = 0; i < layout_.block_size; ++i)
                slots_[size_t(dst * layout_.block_size + i)] = slots_[size_t(src * layout_.block_size + i)];
        copies += int(src_dst.size());
    }
    MemoryInfo memory() const override { return {}; }

    std::function<void()> before_forward;  // runs on the engine thread at the start of every forward
    int forwards = 0;
    int copies = 0;
    bool fail_next_forward = false;
    std::vector<int> batch_seqs, batch_tokens;

private:
    std::pair<int32_t, int32_t>& slot(const int32_t* table, int p) {
        return slots_[size_t(table[p / layout_.block_size]) * size_t(layout_.block_size) + size_t(p % layout_.block_size)];
    }
    int vocab_;
    NextFn next_;
    KvLayout layout_;
    std::vector<std::pair<int32_t, int32_t>> slots_;
};

// A model for the fake backend: no weights, a byte tokenizer (ids 3..258 are bytes, 1 BOS, 2 EOS).
inline std::shared_ptr<Model> fake_model(int context_length = 256, int vocab = 300) {
    auto m = std::make_shared<Model>();
    m->spec = "fake";
    m->name = "fake";
    m->config.architecture = "LlamaForCausalLM";
    m->config.num_layers = 1;
    m->config.num_heads = 1;
    m->config.num_kv_heads = 1;
    m->config.head_dim = 4;
    m->config.hidden_size = 4;
    m->config.vocab_size = vocab;
    m->config.max_position_embeddings = context_length;
    m->config.eos_token_ids = {2};
    m->tokenizer = std::make_shared<ByteTokenizer>(vocab);
    return m;
}

}  // namespace folio::test
