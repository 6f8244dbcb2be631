#include "engine/cpu/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <thread>
#include <unistd.h>

#include "engine/core/error.h"
#include "engine/core/thread_pool.h"
#include "engine/cpu/cpu_kv_cache.h"
#include "engine/core/cpu_kv_budget.h"
#include "engine/cpu/cpu_linear.h"
#include "engine/cpu/kernels.h"
#include "engine/cpu/ops.h"
#include "engine/model/architectures.h"
#include "engine/model/model.h"

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
        : model_(model), cfg_(model.config), pool_(options.num_threads), plan_(plan_model(model.config, model.weights)) {
        check_cpu_plan(plan_);
        cpu::kernels();  // an unusable FOLIO_CPU_ISA fails here, not in the middle of a step
        act_parts_ = options.cpu_activations == CpuActivations::Exact ? 3 : 1;
        kv_scales_from_first_batch_ = options.kv_scales_from_first_batch;
        // The plan lists the linears in the order a step runs them (lm_head last): AWQ ones are
        // packed in that order.
        std::vector<const Linear*> order;
        for (const NamedLinear& l : plan_.linears) order.push_back(l.linear);
        // The int8 mode of a 4-bit model keeps its dense lm_head in 8 bits (a quarter of a decode
        // step's bytes in fp16; llama.cpp's 4-bit mixes keep it in 6): multiplied by the same int8
        // activations on the integer kernels, per group of the model's AWQ group size.
        std::vector<int> q8_group(order.size(), 0);
        const Linear& head = plan_.linear(plan_.lm_head);
        const int g = model.config.quant.group_size;
        if (act_parts_ == 1 && model.config.quant.method == QuantConfig::Method::Awq && head.kind == Linear::Kind::Dense &&
            head.in % g == 0 && head.out % 8 == 0)
            q8_group[size_t(plan_.lm_head.index)] = g;
        report(options.progress, "preparing weights for the CPU", 0, int64_t(order.size()), "matrices");
        linears_ = cpu::prepare_linears(order, q8_group, [&](size_t done, size_t total) {
            report(options.progress, "preparing weights for the CPU", int64_t(done), int64_t(total), "matrices");
        });
        for (const auto& p : linears_) streamed_bytes_ += cpu::streamed_bytes(p);
        f32_.resize(plan_.tensors.size());
        auto to_f32_once = [&](TensorRef r) {
            if (r.present() && f32_[size_t(r.index)].empty()) f32_[size_t(r.index)] = to_f32(plan_.tensor(r));
        };
        for (const LayerPlan& layer : plan_.layers)
            for (const LayerStep& step : layer.steps) {
                if (const auto* n = std::get_if<RmsNorm>(&step)) to_f32_once(n->weight);
                if (const auto* q = std::get_if<QkvProjection>(&step))
                    for (TensorRef b : {q->q_bias, q->k_bias, q->v_bias}) to_f32_once(b);
                if (const auto* h = std::get_if<HeadNorm>(&step)) to_f32_once(h->q_weight), to_f32_once(h->k_weight);
            }
        to_f32_once(plan_.final_norm.weight);
    }

    std::string name() const override { return "cpu"; }
    std::string device_name() const override {
        return cpu_model_name() + " (" + std::to_string(pool_.size()) + " threads, " + (act_parts_ == 1 ? "int8" : "exact") +
               " activations, " + cpu::kernels().isa + ")";
    }

    size_t kv_bytes_per_block(const KvLayout& layout) const override { return cpu::KvCache::bytes_per_block(layout); }

    int64_t plan_kv_blocks(const KvLayout& layout, uint64_t budget_bytes, int64_t min_blocks) const override {
        const uint64_t per_block = kv_bytes_per_block(layout);
        const uint64_t one_sequence = uint64_t(std::max<int64_t>(min_blocks, 0)) * per_block;
        const bool chosen = budget_bytes == 0;
        if (chosen) budget_bytes = default_cpu_kv_budget(available_ram(), one_sequence);
        const int64_t blocks = int64_t(budget_bytes / per_block);
        if (blocks < min_blocks) {
            throw Error("KV cache budget of " + std::to_string(budget_bytes >> 20) + " MiB holds " + std::to_string(blocks) +
                        " blocks of " + std::to_string(per_block >> 10) + " KiB, fewer than the " + std::to_string(min_blocks) +
                        " (" + std::to_string((one_sequence + (1 << 20) - 1) >> 20) + " MiB) needed for one full-length sequence; " +
                        (chosen ? "free memory (the default takes at most half of the free memory for one sequence), or set the "
                                  "budget (--kv-cache-mb), or use an FP8 KV cache (--kv-cache-dtype fp8: a quarter of the bytes)"
                                : "raise the budget (--kv-cache-mb) or use an FP8 KV cache (--kv-cache-dtype fp8: a quarter of the bytes)"));
        }
        return blocks;
    }

    void allocate_kv(const KvLayout& layout) override {
        layout_ = layout;
        kv_.allocate(layout, model_.weights, kv_scales_from_first_batch_);
    }

    void forward(const ForwardBatch& batch, std::vector<float>& logits) override;

    void copy_blocks(const std::vector<std::pair<int32_t, int32_t>>& src_dst) override { kv_.copy_blocks(src_dst); }

    MemoryInfo memory() const override {
        MemoryInfo m;
        long pages = 0, resident = 0;
        std::ifstream statm("/proc/self/statm");
        statm >> pages >> resident;
        m.device_used = uint64_t(resident) * uint64_t(sysconf(_SC_PAGE_SIZE));
        m.device_total = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
        m.weights = streamed_bytes_;  // the linears as this backend holds them (packed, 8-bit lm_head, FP8)
        m.kv_cache = kv_.bytes();
        return m;
    }

private:
    void check_batch(const ForwardBatch& batch) const;
    // Groups the (token, head) query rows of each sequence and KV head into attention tasks.
    void plan_attention(const ForwardBatch& batch);

    // The plan's steps (engine/model/layer_plan.h), each as the plan defines it, on layer `layer` of
    // the step's T tokens.
    struct StepArgs {
        const ForwardBatch& batch;
        int T;
        int layer;
    };
    void run(const RmsNorm& s, const StepArgs& a);
    void run(const QkvProjection& s, const StepArgs& a);
    void run(const HeadNorm& s, const StepArgs& a);
    void run(const Rope& s, const StepArgs& a);
    void run(const Attention& s, const StepArgs& a);
    void run(const OutProjection& s, const StepArgs& a);
    void run(const ResidualAdd& s, const StepArgs& a);
    void run(const GatedMlp& s, const StepArgs& a);
    const cpu::PreparedLinear& linear(LinearRef r) const { return linears_[size_t(r.index)]; }
    const float* f32(TensorRef r) const { return f32_[size_t(r.index)].data(); }

    struct AttnTask {
        int seq = 0, kv_head = 0, rows = 0;
        int token[cpu::kMaxAttnRows];
        int head[cpu::kMaxAttnRows];
    };
    std::vector<AttnTask> attn_tasks_;

    const Model& model_;
    const ModelConfig& cfg_;
    mutable ThreadPool pool_;
    const ModelPlan plan_;
    std::vector<cpu::PreparedLinear> linears_;  // plan_.linears, as the CPU kernels read them
    std::vector<std::vector<float>> f32_;       // plan_.tensors that steps read in fp32 (norm weights, biases); others empty
    int act_parts_ = 3;
    uint64_t streamed_bytes_ = 0;
    cpu::QuantizedActs acts_;
    KvLayout layout_;
    cpu::KvCache kv_;
    bool kv_scales_from_first_batch_ = false;
    Scratch s_;
};

void CpuBackend::check_batch(const ForwardBatch& batch) const {
    if (!kv_.allocated()) throw Error("CPU backend: forward() before allocate_kv()");
    const int window = plan_.kv_window;
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
    const int H = c.hidden_size;
    s_.reserve(T, c);
    for (size_t j = 0; j < batch.seqs.size(); ++j) {
        const SeqSlice& seq = batch.seqs[j];
        for (int i = 0; i < seq.num_tokens; ++i) {
            s_.positions[size_t(seq.token_offset + i)] = seq.context_before + i;
        }
    }

    // [T, H] embeddings
    const FloatTensor& embed = plan_.tensor(plan_.embed);
    pool_.parallel_for(T, 1, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) row_to_f32(embed, batch.tokens[size_t(t)], H, s_.x.data() + size_t(t) * H);
    });

    plan_attention(batch);
    for (int l = 0; l < int(plan_.layers.size()); ++l) {
        const StepArgs args{batch, T, l};
        for (const LayerStep& step : plan_.layers[size_t(l)].steps) std::visit([&](const auto& s) { run(s, args); }, step);
    }

    // Final norm and lm_head only for the rows that need logits.
    const int rows = batch.num_logit_rows();
    s_.logits_in.resize(size_t(rows) * H);
    int r = 0;
    for (const auto& seq : batch.seqs) {
        if (!seq.want_logits) continue;
        const int t = seq.token_offset + seq.num_tokens - 1;
        cpu::rms_norm(s_.x.data() + size_t(t) * H, f32(plan_.final_norm.weight), s_.logits_in.data() + size_t(r) * H, 1, H,
                      plan_.final_norm.eps);
        ++r;
    }
    logits.resize(size_t(rows) * c.vocab_size);
    if (rows > 0) cpu::run_linears({{&linear(plan_.lm_head), logits.data()}}, s_.logits_in.data(), rows, act_parts_, acts_, pool_);
    // Padding rows of the embedding (ids the tokenizer does not have) can never be sampled.
    for (int i = 0; i < rows; ++i)
        std::fill(logits.begin() + ptrdiff_t(i) * c.vocab_size + plan_.sampled_vocab, logits.begin() + ptrdiff_t(i + 1) * c.vocab_size,
                  -std::numeric_limits<float>::infinity());
}

void CpuBackend::run(const RmsNorm& s, const StepArgs& a) {
    const int H = cfg_.hidden_size;
    pool_.parallel_for(a.T, 1, [&](int64_t b, int64_t e) {
        cpu::rms_norm(s_.x.data() + size_t(b) * H, f32(s.weight), s_.xn.data() + size_t(b) * H, int(e - b), H, s.eps);
    });
}

void CpuBackend::run(const QkvProjection& s, const StepArgs& a) {
    // q [T, q_dim], k and v [T, kv_dim]
    cpu::run_linears({{&linear(s.q), s_.q.data()}, {&linear(s.k), s_.k.data()}, {&linear(s.v), s_.v.data()}}, s_.xn.data(), a.T,
                     act_parts_, acts_, pool_);
    // Qwen2's biases: added to the fp32 products, as nn.Linear adds them.
    const int q_dim = cfg_.num_heads * cfg_.head_dim, kv_dim = cfg_.num_kv_heads * cfg_.head_dim;
    const auto add_bias = [&](TensorRef bias, float* rows, int dim) {
        if (!bias.present()) return;
        const float* b = f32(bias);
        for (int t = 0; t < a.T; ++t)
            for (int i = 0; i < dim; ++i) rows[size_t(t) * dim + i] += b[i];
    };
    add_bias(s.q_bias, s_.q.data(), q_dim);
    add_bias(s.k_bias, s_.k.data(), kv_dim);
    add_bias(s.v_bias, s_.v.data(), kv_dim);
}

void CpuBackend::run(const HeadNorm& s, const StepArgs& a) {
    // Every head row of q and of k, over head_dim, in place.
    const int hd = cfg_.head_dim;
    pool_.parallel_for(a.T, 1, [&](int64_t b, int64_t e) {
        cpu::rms_norm(s_.q.data() + size_t(b) * cfg_.num_heads * hd, f32(s.q_weight), s_.q.data() + size_t(b) * cfg_.num_heads * hd,
                      int(e - b) * cfg_.num_heads, hd, s.eps);
        cpu::rms_norm(s_.k.data() + size_t(b) * cfg_.num_kv_heads * hd, f32(s.k_weight), s_.k.data() + size_t(b) * cfg_.num_kv_heads * hd,
                      int(e - b) * cfg_.num_kv_heads, hd, s.eps);
    });
}

void CpuBackend::run(const Rope& s, const StepArgs& a) {
    const int hd = cfg_.head_dim;
    const int q_dim = cfg_.num_heads * hd, kv_dim = cfg_.num_kv_heads * hd;
    const float* inv_freq = plan_.rope_tables[size_t(s.table)].data();
    pool_.parallel_for(a.T, 1, [&](int64_t b, int64_t e) {
        cpu::rope(s_.q.data() + size_t(b) * q_dim, int(e - b), cfg_.num_heads, hd, s_.positions.data() + b, inv_freq);
        cpu::rope(s_.k.data() + size_t(b) * kv_dim, int(e - b), cfg_.num_kv_heads, hd, s_.positions.data() + b, inv_freq);
    });
}

void CpuBackend::run(const Attention& s, const StepArgs& a) {
    const ForwardBatch& batch = a.batch;
    const int hd = cfg_.head_dim;
    // The cache's element type (fp32 or FP8, with its scales) is the KvCache's concern.
    kv_.write(a.layer, s_.k.data(), s_.v.data(), batch.seqs, batch.block_tables.data());
    // One task per run of up to kMaxAttnRows query rows (token, head) of one sequence and one KV
    // head: each row's result depends only on its own sequence's cache, never on the task it shares.
    // Keys out of the window are never read.
    pool_.run(int64_t(attn_tasks_.size()), [&](int64_t i) {
        const AttnTask& task = attn_tasks_[size_t(i)];
        const SeqSlice& seq = batch.seqs[size_t(task.seq)];
        const float* q[cpu::kMaxAttnRows];
        float* o[cpu::kMaxAttnRows];
        int first[cpu::kMaxAttnRows], keys[cpu::kMaxAttnRows];
        int max_keys = 0;
        for (int r = 0; r < task.rows; ++r) {
            const int t = task.token[r], h = task.head[r];
            const size_t row = (size_t(t) * cfg_.num_heads + size_t(h)) * hd;
            q[r] = s_.q.data() + row;
            o[r] = s_.attn.data() + row;
            const int pos = t - seq.token_offset + seq.context_before;
            first[r] = first_attended_key(pos, s.window);
            keys[r] = pos + 1;
            max_keys = std::max(max_keys, keys[r]);
        }
        thread_local std::vector<float> scores;
        if (scores.size() < size_t(task.rows) * size_t(max_keys)) scores.resize(size_t(task.rows) * size_t(max_keys));
        kv_.attention_rows(a.layer, q, o, first, keys, task.rows, task.kv_head, batch.block_tables.data() + seq.block_table_offset,
                           s.scale, scores.data());
    });
}

void CpuBackend::run(const OutProjection& s, const StepArgs& a) {
    cpu::run_linears({{&linear(s.o), s_.proj.data()}}, s_.attn.data(), a.T, act_parts_, acts_, pool_);  // [T, H]
}

void CpuBackend::run(const ResidualAdd&, const StepArgs& a) {
    for (size_t i = 0; i < size_t(a.T) * cfg_.hidden_size; ++i) s_.x[i] += s_.proj[i];
}

void CpuBackend::run(const GatedMlp& s, const StepArgs& a) {
    // gate and up [T, I]
    cpu::run_linears({{&linear(s.gate), s_.gate.data()}, {&linear(s.up), s_.up.data()}}, s_.xn.data(), a.T, act_parts_, acts_, pool_);
    const int64_t n_inter = int64_t(a.T) * cfg_.intermediate_size;
    pool_.parallel_for(n_inter, 4096, [&](int64_t b, int64_t e) {
        cpu::silu_mul(s_.gate.data() + b, s_.up.data() + b, s_.gate.data() + b, e - b);
    });
    cpu::run_linears({{&linear(s.down), s_.proj.data()}}, s_.gate.data(), a.T, act_parts_, acts_, pool_);  // [T, H]
}

}  // namespace

void check_cpu_plan(const ModelPlan& plan) {
    // Every step and option layer_plan.h defines runs here; what remains to check is that a step's
    // tensors have the shapes its loop reads (a plan built by hand, as tests do, could differ).
    for (int l = 0; l < int(plan.layers.size()); ++l)
        for (const LayerStep& step : plan.layers[size_t(l)].steps) {
            const auto check = [&](TensorRef r, int64_t n) {
                if (r.present() && plan.tensor(r).numel() != n)
                    refuse_plan("CPU backend", plan, l, step,
                                plan.name(r) + " has " + std::to_string(plan.tensor(r).numel()) + " values, not " + std::to_string(n));
            };
            if (const auto* s = std::get_if<QkvProjection>(&step)) {
                check(s->q_bias, plan.linear(s->q).out);
                check(s->k_bias, plan.linear(s->k).out);
                check(s->v_bias, plan.linear(s->v).out);
            }
            // q's and k's heads are both head_dim wide: one size for both weights.
            if (const auto* s = std::get_if<HeadNorm>(&step)) check(s->q_weight, plan.tensor(s->k_weight).numel());
        }
}

std::unique_ptr<Backend> make_cpu_backend(const Model& model, const BackendOptions& options) {
    return std::make_unique<CpuBackend>(model, options);
}

}  // namespace folio
