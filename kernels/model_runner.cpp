#include "kernels/model_runner.h"

#include <algorithm>

#include "kernels/activation.h"
#include "kernels/attention.h"
#include "kernels/embedding.h"
#include "kernels/qkv_epilogue.h"
#include "kernels/rms_norm.h"
#include "kernels/rope_kv.h"
#include "kernels/sampling.h"

namespace folio::cuda {

ModelRunner::ModelRunner(const ModelConfig& config, const DeviceModel& model, const RunnerConfig& rc, int sm_count)
    : config_(config), model_(model), rc_(rc), linear_(model, std::max(rc.max_tokens, rc.max_seqs), sm_count, rc.policy) {
    const size_t T = size_t(rc.max_tokens), S = size_t(rc.max_seqs);
    const size_t H = size_t(config.hidden_size), I = size_t(config.intermediate_size);
    qkv_width_ = (config.num_heads + 2 * config.num_kv_heads) * config.head_dim;
    residual_ = DeviceBuffer<float>(T * H, "activations");
    normed_ = DeviceBuffer<__half>(T * H, "activations");
    qkv_ = DeviceBuffer<__half>(T * size_t(qkv_width_), "activations");
    attn_ = DeviceBuffer<__half>(T * size_t(config.num_heads) * config.head_dim, "activations");
    proj_ = DeviceBuffer<__half>(T * H, "activations");
    gate_up_ = DeviceBuffer<__half>(T * 2 * I, "activations");
    act_ = DeviceBuffer<__half>(T * I, "activations");
    final_ = DeviceBuffer<__half>(S * H, "activations");
    logits_ = DeviceBuffer<float>(S * size_t(config.vocab_size), "logits");
}

namespace {

// Decode-attention partitions for a context of `keys` (graphs size the grid for the widest table).
int partitions_for(int keys, const RunnerConfig& rc) {
    return decode_attention_partitions(std::max(1, keys), rc.partition_size, rc.sliding_window);
}

}  // namespace

size_t ModelRunner::buffer_bytes(const ModelConfig& c, const RunnerConfig& rc, int max_context) {
    const size_t T = size_t(rc.max_tokens), S = size_t(rc.max_seqs);
    const size_t H = size_t(c.hidden_size), I = size_t(c.intermediate_size);
    const size_t qkv = size_t(c.num_heads + 2 * c.num_kv_heads) * size_t(c.head_dim);
    const size_t q = size_t(c.num_heads) * size_t(c.head_dim);
    const int width = (max_context + rc.block_size - 1) / rc.block_size;
    const size_t workspace =
        std::max<size_t>(decode_attention_workspace_floats(rc.max_seqs, c.num_heads, c.head_dim, partitions_for(width * rc.block_size, rc)), 1);
    return T * H * 4                 // residual (fp32)
           + T * H * 2               // normed
           + T * qkv * 2             // qkv
           + T * q * 2               // attn
           + T * H * 2               // proj
           + T * 2 * I * 2           // gate_up
           + T * I * 2               // act
           + S * H * 2               // final
           + S * size_t(c.vocab_size) * 4  // logits (fp32)
           + workspace * 4;
}

size_t ModelRunner::activation_bytes() const {
    return residual_.bytes() + normed_.bytes() + qkv_.bytes() + attn_.bytes() + proj_.bytes() + gate_up_.bytes() +
           act_.bytes() + final_.bytes() + logits_.bytes() + attn_workspace_.bytes() + linear_.workspace_bytes();
}

int ModelRunner::decode_partitions(int table_width) const { return partitions_for(table_width * layout_.block_size, rc_); }

void ModelRunner::set_kv(const KvLayout& layout, const std::vector<void*>& k, const std::vector<void*>& v, int max_context,
                         float* scales) {
    if (is_fp8(layout.dtype) && !scales) throw Error("CUDA backend: an FP8 KV cache needs its scales");
    layout_ = layout;
    k_pools_ = k;
    v_pools_ = v;
    kv_scales_ = scales;
    if (is_fp8(layout.dtype)) kv_amax_ = DeviceBuffer<float>(2 * size_t(layout.num_layers), "KV scale calibration");
    const int width = (max_context + layout.block_size - 1) / layout.block_size;
    const size_t floats =
        decode_attention_workspace_floats(rc_.max_seqs, config_.num_heads, config_.head_dim, decode_partitions(width));
    attn_workspace_ = DeviceBuffer<float>(std::max<size_t>(floats, 1), "decode attention workspace");
}

__half* ModelRunner::buffer(StepBuffer b) const {
    switch (b) {
        case StepBuffer::Normed: return normed_.get();
        case StepBuffer::Qkv: return qkv_.get();
        case StepBuffer::Attn: return attn_.get();
        case StepBuffer::Proj: return proj_.get();
        case StepBuffer::GateUp: return gate_up_.get();
        case StepBuffer::Act: return act_.get();
    }
    return nullptr;
}

void ModelRunner::forward(const StepInputs& in, const StepCounts& c, cudaStream_t stream) {
    if (k_pools_.empty()) throw Error("CUDA backend: forward() before allocate_kv()");
    const ModelConfig& cfg = config_;
    const int T = c.num_tokens, H = cfg.hidden_size, I = cfg.intermediate_size;

    const bool calibrate = calibrate_ && is_fp8(layout_.dtype);
    calibrate_ = false;
    if (calibrate) check(cudaMemsetAsync(kv_amax_.get(), 0, kv_amax_.bytes(), stream), "cudaMemsetAsync");
    embedding_gather(model_.embed.get(), in.d_tokens(), residual_.get(), T, H, stream);
    // The model's plan as launches (launch_plan.h): the same kernels in the same order for every step,
    // so a decode step can be captured in a CUDA graph.
    for (const Launch& k : model_.plan.launches) {
        switch (k.op) {
            case Launch::Op::Norm:
                rms_norm(residual_.get(), k.add_residual ? proj_.get() : nullptr, model_.norms[size_t(k.weight)].get(), normed_.get(),
                         nullptr, T, H, k.eps, stream);
                break;
            case Launch::Op::Linear:
                linear_.run(model_.linears[size_t(k.weight)], buffer(k.in), T, buffer(k.out), false, stream);
                break;
            case Launch::Op::RopeWriteKv: {
                const KvWriteTarget w = kv_write_target(k.layer);
                const float* inv_freq = model_.rope_tables[size_t(k.rope_table)].get();
                if (calibrate) {  // the first batch sets this layer's scales before anything is written
                    KvWriteTarget m = w;
                    m.amax = kv_amax_.get() + 2 * k.layer;
                    rope_write_kv(qkv_.get(), in.d_positions(), inv_freq, in.d_slots(), m, T, cfg.num_heads, cfg.num_kv_heads,
                                  cfg.head_dim, layout_.block_size, stream);
                    kv_scales_from_amax(m.amax, kv_scales_ + 2 * k.layer, kv_scales_ + 2 * k.layer + 1, stream);
                }
                rope_write_kv(qkv_.get(), in.d_positions(), inv_freq, in.d_slots(), w, T, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim,
                              layout_.block_size, stream);
                break;
            }
            case Launch::Op::Attention: attention(k, in, c, stream); break;
            case Launch::Op::SiluMul: silu_mul(gate_up_.get(), act_.get(), T, I, stream); break;
            case Launch::Op::QkvBias: qkv_bias_add(qkv_.get(), model_.qkv_biases[size_t(k.weight)].get(), T, qkv_width_, stream); break;
            case Launch::Op::HeadNorm: {
                const float* w = model_.head_norms[size_t(k.weight)].get();
                qk_head_norm(qkv_.get(), w, w + cfg.head_dim, T, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim, k.eps, stream);
                break;
            }
        }
    }
    if (c.num_logit_rows == 0) return;
    rms_norm(residual_.get(), model_.plan.final_add_residual ? proj_.get() : nullptr, model_.final_norm.get(), final_.get(),
             in.d_logit_rows(), c.num_logit_rows, H, model_.plan.final_eps, stream);
    linear_.run(model_.lm_head, final_.get(), c.num_logit_rows, logits_.get(), true, stream);
    mask_padded_vocab(logits_.get(), cfg.vocab_size, c.num_logit_rows, model_.plan.sampled_vocab, stream);
}

KvWriteTarget ModelRunner::kv_write_target(int layer) const {
    KvWriteTarget w;
    w.k_pool = k_pools_[size_t(layer)];
    w.v_pool = v_pools_[size_t(layer)];
    w.dtype = layout_.dtype;
    w.k_scale = kv_scales_ ? kv_scales_ + 2 * layer : nullptr;
    w.v_scale = kv_scales_ ? kv_scales_ + 2 * layer + 1 : nullptr;
    return w;
}

void ModelRunner::attention(const Launch& k, const StepInputs& in, const StepCounts& c, cudaStream_t stream) {
    const ModelConfig& cfg = config_;
    const int q_width = cfg.num_heads * cfg.head_dim;
    PagedKv kv;
    kv.k_pool = k_pools_[size_t(k.layer)];
    kv.v_pool = v_pools_[size_t(k.layer)];
    kv.dtype = layout_.dtype;
    kv.k_scale = kv_scales_ ? kv_scales_ + 2 * k.layer : nullptr;
    kv.v_scale = kv_scales_ ? kv_scales_ + 2 * k.layer + 1 : nullptr;
    kv.num_kv_heads = cfg.num_kv_heads;
    kv.head_dim = cfg.head_dim;
    kv.block_size = layout_.block_size;
    kv.max_blocks_per_seq = c.table_width;
    if (c.num_decode > 0) {
        DecodeAttention a;
        a.q = qkv_.get();
        a.q_stride = qkv_width_;
        a.out = attn_.get();
        a.out_stride = q_width;
        a.q_rows = in.d_decode_q_rows();
        a.seq_lens = in.d_decode_lens();
        a.num_seqs = c.num_decode;
        a.num_heads = cfg.num_heads;
        a.scale = k.scale;
        a.window = k.window;
        a.partition_size = rc_.partition_size;
        a.max_partitions = decode_partitions(c.table_width);
        a.workspace = attn_workspace_.get();
        kv.block_tables = in.d_block_tables();
        decode_attention(a, kv, stream);
    }
    if (c.num_tiles > 0) {
        PrefillAttention a;
        a.q = qkv_.get();
        a.q_stride = qkv_width_;
        a.out = attn_.get();
        a.out_stride = q_width;
        a.num_heads = cfg.num_heads;
        a.scale = k.scale;
        a.window = k.window;
        a.seq_q_row = in.d_prefill_q_row();
        a.seq_num_q = in.d_prefill_num_q();
        a.seq_context_before = in.d_prefill_before();
        a.tile_seq = in.d_tile_seq();
        a.tile_q0 = in.d_tile_q0();
        a.num_tiles = c.num_tiles;
        kv.block_tables = in.d_block_tables() + size_t(c.num_decode) * c.table_width;
        prefill_attention(a, kv, stream);
    }
}

void ModelRunner::sample(const StepInputs& in, const StepCounts& c, int32_t* out, cudaStream_t stream) {
    if (c.num_logit_rows == 0) return;
    if (c.num_penalty_ids > 0)
        apply_penalties(logits_.get(), config_.vocab_size, c.num_logit_rows, in.d_sampling(), in.d_penalty_ids(), in.d_penalty_counts(),
                        stream);
    sample_tokens(logits_.get(), config_.vocab_size, c.num_logit_rows, in.d_sampling(), out, stream);
}

}  // namespace folio::cuda
