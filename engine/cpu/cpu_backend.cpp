#include "engine/cpu/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <thread>
#include <unistd.h>

#include "engine/core/error.h"
#include "engine/core/thread_pool.h"
#include "engine/cpu/cpu_linear.h"
#include "engine/cpu/kernels.h"
#include "engine/cpu/ops.h"
#include "engine/model/model.h"
#include "engine/model/rope.h"

namespace folio {

namespace {

std::vector<float> to_f32(const FloatTensor& t) {
    std::vector<float> out(static_cast<size_t>(t.numel()));
    row_to_f32(t, 0, t.numel(), out.data());
    return out;
}

std::string cpu_model_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            auto p = line.find(':');
            if (p != std::string::npos) return line.substr(p + 2);
        }
    return "CPU";
}

uint64_t available_ram() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:") return kb * 1024;
    return uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE)) / 2;
}

// Per-step activations, grown to the largest batch seen and then reused.
struct Scratch {
    std::vector<float> x, xn, q, k, v, attn, proj, gate, up, logits_in;
    std::vector<int32_t> positions;
    void reserve(int tokens, const ModelConfig& c) {
        const size_t t = size_t(tokens);
        x.resize(t * c.hidden_size);
        xn.resize(t * c.hidden_size);
        q.resize(t * c.num_heads * c.head_dim);
        k.resize(t * c.num_kv_heads * c.head_dim);
        v.resize(t * c.num_kv_heads * c.head_dim);
        attn.resize(t * c.num_heads * c.head_dim);
        proj.resize(t * std::max(c.hidden_size, c.num_heads * c.head_dim));
        gate.resize(t * c.intermediate_size);
        up.resize(t * c.intermediate_size);
        positions.resize(t);
    }
};

class CpuBackend final : public Backend {
public:
    CpuBackend(const Model& model, const BackendOptions& options)
        : model_(model), cfg_(model.config), pool_(options.num_threads), inv_freq_(rope_inv_freq(cfg_)) {
        cpu::kernels();  // an unusable FOLIO_CPU_ISA fails here, not in the middle of a step
        act_parts_ = options.cpu_activations == CpuActivations::Exact ? 3 : 1;
        std::vector<const Linear*> order;
        for (const auto& L : model.weights.layers) {
            norms_.push_back({to_f32(L.input_norm), to_f32(L.post_attention_norm)});
            for (const Linear* l : {&L.q_proj, &L.k_proj, &L.v_proj, &L.o_proj, &L.gate_proj, &L.up_proj, &L.down_proj}) order.push_back(l);
        }
        order.push_back(&model.weights.lm_head);
        // The int8 mode of a 4-bit model keeps its dense lm_head in 8 bits (a quarter of a decode
        // step's bytes in fp16; llama.cpp's 4-bit mixes keep it in 6): multiplied by the same int8
        // activations on the integer kernels, per group of the model's AWQ group size.
        std::vector<int> q8_group(order.size(), 0);
        const Linear& head = model.weights.lm_head;
        const int g = model.config.quant.group_size;
        if (act_parts_ == 1 && model.config.quant.method == QuantConfig::Method::Awq && head.kind == Linear::Kind::Dense &&
            head.in % g == 0 && head.out % 8 == 0)
            q8_group.back() = g;
        report(options.progress, "preparing weights for the CPU", 0, int64_t(order.size()), "matrices");
        std::vector<cpu::PreparedLinear> prepared = cpu::prepare_linears(order, q8_group, [&](size_t done, size_t total) {
            report(options.progress, "preparing weights for the CPU", int64_t(done), int64_t(total), "matrices");
        });
        for (size_t l = 0; l < model.weights.layers.size(); ++l) {
            auto* p = prepared.data() + 7 * l;
            layers_.push_back({std::move(p[0]), std::move(p[1]), std::move(p[2]), std::move(p[3]), std::move(p[4]), std::move(p[5]), std::move(p[6])});
        }
        lm_head_ = std::move(prepared.back());
        for (const auto& p : prepared) streamed_bytes_ += cpu::streamed_bytes(p);
        final_norm_ = to_f32(model.weights.final_norm);
    }

    std::string name() const override { return "cpu"; }
    std::string device_name() const override {
        return cpu_model_name() + " (" + std::to_string(pool_.size()) + " threads, " + (act_parts_ == 1 ? "int8" : "exact") +
               " activations, " + cpu::kernels().isa + ")";
    }

    size_t kv_bytes_per_block(const KvLayout& layout) const override { return layout.bytes_per_block(sizeof(float)); }

    int64_t plan_kv_blocks(const KvLayout& layout, uint64_t budget_bytes, int64_t min_blocks) const override {
        const uint64_t per_block = kv_bytes_per_block(layout);
        if (budget_bytes == 0) budget_bytes = std::min<uint64_t>(available_ram() / 4, 8ull << 30);
        const int64_t blocks = int64_t(budget_bytes / per_block);
        if (blocks < min_blocks) {
            throw Error("KV cache budget of " + std::to_string(budget_bytes >> 20) + " MiB holds " + std::to_string(blocks) +
                        " blocks of " + std::to_string(per_block >> 10) + " KiB, fewer than the " + std::to_string(min_blocks) +
                        " needed for one full-length sequence; free memory or lower the context length");
        }
        return blocks;
    }

    void allocate_kv(const KvLayout& layout) override {
        layout_ = layout;
        const size_t per_layer = size_t(layout.num_blocks) * size_t(layout.block_elems());
        k_pool_.assign(size_t(layout.num_layers), {});
        v_pool_.assign(size_t(layout.num_layers), {});
        for (int l = 0; l < layout.num_layers; ++l) {
            k_pool_[size_t(l)].assign(per_layer, 0.0f);
            v_pool_[size_t(l)].assign(per_layer, 0.0f);
        }
    }

    void forward(const ForwardBatch& batch, std::vector<float>& logits) override;

    void copy_blocks(const std::vector<std::pair<int32_t, int32_t>>& src_dst) override {
        const size_t n = size_t(layout_.block_elems());
        for (int l = 0; l < layout_.num_layers; ++l)
            for (const auto& [src, dst] : src_dst) {
                std::copy_n(k_pool_[size_t(l)].data() + size_t(src) * n, n, k_pool_[size_t(l)].data() + size_t(dst) * n);
                std::copy_n(v_pool_[size_t(l)].data() + size_t(src) * n, n, v_pool_[size_t(l)].data() + size_t(dst) * n);
            }
    }

    MemoryInfo memory() const override {
        MemoryInfo m;
        long pages = 0, resident = 0;
        std::ifstream statm("/proc/self/statm");
        statm >> pages >> resident;
        m.device_used = uint64_t(resident) * uint64_t(sysconf(_SC_PAGE_SIZE));
        m.device_total = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
        m.weights = streamed_bytes_;  // the linears as this backend holds them (packed, 8-bit lm_head)
        m.kv_cache = uint64_t(layout_.num_blocks) * kv_bytes_per_block(layout_);
        return m;
    }

private:
    void check_batch(const ForwardBatch& batch) const;
    // Groups the (token, head) query rows of each sequence and KV head into attention tasks.
    void plan_attention(const ForwardBatch& batch);

    struct AttnTask {
        int seq = 0, kv_head = 0, rows = 0;
        int token[cpu::kMaxAttnRows];
        int head[cpu::kMaxAttnRows];
    };
    std::vector<AttnTask> attn_tasks_;

    const Model& model_;
    const ModelConfig& cfg_;
    mutable ThreadPool pool_;
    std::vector<float> inv_freq_;
    struct LayerNorms { std::vector<float> input, post; };
    std::vector<LayerNorms> norms_;
    std::vector<float> final_norm_;
    struct LayerLinears { cpu::PreparedLinear q, k, v, o, gate, up, down; };
    std::vector<LayerLinears> layers_;
    cpu::PreparedLinear lm_head_;
    int act_parts_ = 3;
    uint64_t streamed_bytes_ = 0;
    cpu::QuantizedActs acts_;
    KvLayout layout_;
    std::vector<std::vector<float>> k_pool_, v_pool_;
    Scratch s_;
};

void CpuBackend::check_batch(const ForwardBatch& batch) const {
    if (k_pool_.empty()) throw Error("CPU backend: forward() before allocate_kv()");
    const int window = attention_window(cfg_);
    for (const auto& seq : batch.seqs) {
        const int needed = (seq.context_before + seq.num_tokens + layout_.block_size - 1) / layout_.block_size;
        if (seq.num_tokens <= 0 || seq.token_offset < 0 || seq.token_offset + seq.num_tokens > batch.num_tokens() ||
            seq.num_blocks < needed || seq.block_table_offset < 0 ||
            seq.block_table_offset + seq.num_blocks > int(batch.block_tables.size()))
            throw Error("CPU backend: malformed batch for sequence " + std::to_string(seq.seq_id));
        // Blocks before the first query's window are never read and may be released (-1).
        const int live = first_live_block(seq.context_before, window, layout_.block_size);
        for (int b = 0; b < needed; ++b) {
            const int32_t blk = batch.block_tables[size_t(seq.block_table_offset + b)];
            if (b < live && blk == kReleasedBlock) continue;
            if (blk < 0 || blk >= layout_.num_blocks)
                throw Error("CPU backend: block " + std::to_string(blk) + " of sequence " + std::to_string(seq.seq_id) +
                            " is outside the pool");
        }
    }
    for (int32_t t : batch.tokens)
        if (t < 0 || t >= cfg_.vocab_size) throw Error("CPU backend: token id " + std::to_string(t) + " is outside the vocabulary");
}

void CpuBackend::plan_attention(const ForwardBatch& batch) {
    const int group = cfg_.num_heads / cfg_.num_kv_heads;
    attn_tasks_.clear();
    for (size_t j = 0; j < batch.seqs.size(); ++j) {
        const SeqSlice& seq = batch.seqs[j];
        for (int kvh = 0; kvh < cfg_.num_kv_heads; ++kvh) {
            AttnTask task;
            task.seq = int(j);
            task.kv_head = kvh;
            for (int t = seq.token_offset; t < seq.token_offset + seq.num_tokens; ++t)
                for (int h = kvh * group; h < (kvh + 1) * group; ++h) {
                    task.token[task.rows] = t;
                    task.head[task.rows] = h;
                    if (++task.rows == cpu::kMaxAttnRows) {
                        attn_tasks_.push_back(task);
                        task.rows = 0;
                    }
                }
            if (task.rows > 0) attn_tasks_.push_back(task);
        }
    }
}

void CpuBackend::forward(const ForwardBatch& batch, std::vector<float>& logits) {
    check_batch(batch);
    const ModelConfig& c = cfg_;
    const int T = batch.num_tokens();
    const int H = c.hidden_size, hd = c.head_dim;
    const int q_dim = c.num_heads * hd, kv_dim = c.num_kv_heads * hd;
    s_.reserve(T, c);
    for (size_t j = 0; j < batch.seqs.size(); ++j) {
        const SeqSlice& seq = batch.seqs[j];
        for (int i = 0; i < seq.num_tokens; ++i) {
            s_.positions[size_t(seq.token_offset + i)] = seq.context_before + i;
        }
    }

    // [T, H] embeddings
    pool_.parallel_for(T, 1, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) row_to_f32(model_.weights.embed_tokens, batch.tokens[size_t(t)], H, s_.x.data() + size_t(t) * H);
    });

    const float scale = 1.0f / std::sqrt(float(hd));
    const int window = attention_window(c);  // Mistral v0.1; keys out of the window are never read
    plan_attention(batch);
    for (int l = 0; l < c.num_layers; ++l) {
        pool_.parallel_for(T, 1, [&](int64_t b, int64_t e) {
            cpu::rms_norm(s_.x.data() + size_t(b) * H, norms_[size_t(l)].input.data(), s_.xn.data() + size_t(b) * H, int(e - b), H, c.rms_norm_eps);
        });
        const LayerLinears& P = layers_[size_t(l)];
        // q [T, q_dim], k and v [T, kv_dim]
        cpu::run_linears({{&P.q, s_.q.data()}, {&P.k, s_.k.data()}, {&P.v, s_.v.data()}}, s_.xn.data(), T, act_parts_, acts_, pool_);
        pool_.parallel_for(T, 1, [&](int64_t b, int64_t e) {
            cpu::rope(s_.q.data() + size_t(b) * q_dim, int(e - b), c.num_heads, hd, s_.positions.data() + b, inv_freq_.data());
            cpu::rope(s_.k.data() + size_t(b) * kv_dim, int(e - b), c.num_kv_heads, hd, s_.positions.data() + b, inv_freq_.data());
        });
        float* kp = k_pool_[size_t(l)].data();
        float* vp = v_pool_[size_t(l)].data();
        for (const auto& seq : batch.seqs)
            cpu::write_kv(s_.k.data() + size_t(seq.token_offset) * kv_dim, s_.v.data() + size_t(seq.token_offset) * kv_dim,
                          seq.num_tokens, seq.context_before, layout_, kp, vp, batch.block_tables.data() + seq.block_table_offset);
        // One task per run of up to kMaxAttnRows query rows (token, head) of one sequence and one KV
        // head: each row's result depends only on its own sequence's cache, never on the task it shares.
        const cpu::KernelTable& kt = cpu::kernels();
        pool_.run(int64_t(attn_tasks_.size()), [&](int64_t i) {
            const AttnTask& task = attn_tasks_[size_t(i)];
            const SeqSlice& seq = batch.seqs[size_t(task.seq)];
            const float* q[cpu::kMaxAttnRows];
            float* o[cpu::kMaxAttnRows];
            int first[cpu::kMaxAttnRows], keys[cpu::kMaxAttnRows];
            int max_keys = 0;
            for (int r = 0; r < task.rows; ++r) {
                const int t = task.token[r], h = task.head[r];
                const size_t row = (size_t(t) * c.num_heads + size_t(h)) * hd;
                q[r] = s_.q.data() + row;
                o[r] = s_.attn.data() + row;
                const int pos = t - seq.token_offset + seq.context_before;
                first[r] = first_attended_key(pos, window);
                keys[r] = pos + 1;
                max_keys = std::max(max_keys, keys[r]);
            }
            thread_local std::vector<float> scores;
            if (scores.size() < size_t(task.rows) * size_t(max_keys)) scores.resize(size_t(task.rows) * size_t(max_keys));
            kt.attention_rows(q, o, first, keys, task.rows, task.kv_head, layout_, kp, vp, batch.block_tables.data() + seq.block_table_offset,
                              scale, scores.data());
        });
        cpu::run_linears({{&P.o, s_.proj.data()}}, s_.attn.data(), T, act_parts_, acts_, pool_);  // [T, H]
        for (size_t i = 0; i < size_t(T) * H; ++i) s_.x[i] += s_.proj[i];
        pool_.parallel_for(T, 1, [&](int64_t b, int64_t e) {
            cpu::rms_norm(s_.x.data() + size_t(b) * H, norms_[size_t(l)].post.data(), s_.xn.data() + size_t(b) * H, int(e - b), H, c.rms_norm_eps);
        });
        // gate and up [T, I]
        cpu::run_linears({{&P.gate, s_.gate.data()}, {&P.up, s_.up.data()}}, s_.xn.data(), T, act_parts_, acts_, pool_);
        const int64_t n_inter = int64_t(T) * c.intermediate_size;
        pool_.parallel_for(n_inter, 4096, [&](int64_t b, int64_t e) {
            cpu::silu_mul(s_.gate.data() + b, s_.up.data() + b, s_.gate.data() + b, e - b);
        });
        cpu::run_linears({{&P.down, s_.proj.data()}}, s_.gate.data(), T, act_parts_, acts_, pool_);  // [T, H]
        for (size_t i = 0; i < size_t(T) * H; ++i) s_.x[i] += s_.proj[i];
    }

    // Final norm and lm_head only for the rows that need logits.
    const int rows = batch.num_logit_rows();
    s_.logits_in.resize(size_t(rows) * H);
    int r = 0;
    for (const auto& seq : batch.seqs) {
        if (!seq.want_logits) continue;
        const int t = seq.token_offset + seq.num_tokens - 1;
        cpu::rms_norm(s_.x.data() + size_t(t) * H, final_norm_.data(), s_.logits_in.data() + size_t(r) * H, 1, H, c.rms_norm_eps);
        ++r;
    }
    logits.resize(size_t(rows) * c.vocab_size);
    if (rows > 0) cpu::run_linears({{&lm_head_, logits.data()}}, s_.logits_in.data(), rows, act_parts_, acts_, pool_);
}

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Model& model, const BackendOptions& options) {
    return std::make_unique<CpuBackend>(model, options);
}

}  // namespace folio
