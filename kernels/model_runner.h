#pragma once
// The decoder forward pass as a sequence of kernel launches on one stream, for a packed step:
// embeddings into an fp32 residual stream; then the launches the model's plan became
// (DeviceModel::plan, launch_plan.h; for Llama per layer RMSNorm (+ residual add), fused QKV, RoPE +
// KV write, decode and prefill attention, o_proj, RMSNorm (+ residual add), fused gate/up, SiLU*up,
// down); then the final norm and lm_head only on the rows that want logits (fp32 logits). Nothing
// here synchronises with the host, so the whole step can be captured in a CUDA graph.
#include <vector>

#include "engine/kv/kv_layout.h"
#include "engine/model/model_config.h"
#include "kernels/common/cuda_compat.h"
#include "kernels/device_buffer.h"
#include "kernels/device_model.h"
#include "kernels/linear_runner.h"
#include "kernels/rope_kv.h"
#include "kernels/step_inputs.h"

namespace folio::cuda {

struct RunnerConfig {
    int max_tokens = 2048;      // per step (max_num_batched_tokens)
    int max_seqs = 64;          // per step (max_num_seqs)
    int max_model_len = 2048;   // tokens of one sequence
    int block_size = 16;
    int partition_size = 512;   // decode attention keys per thread block
    int sliding_window = 0;     // attention_window(config)
    LinearPolicy policy;
};

class ModelRunner {
public:
    ModelRunner(const ModelConfig& config, const DeviceModel& model, const RunnerConfig& rc, int sm_count);

    // The KV pools (one K and one V per layer: fp16, or FP8 codes as layout.dtype says) and the longest
    // context a decode step can have. FP8: `scales` is a device array of 2 * num_layers floats (K and V
    // scale of layer 0, then layer 1, ...), read by the kernels on every step.
    void set_kv(const KvLayout& layout, const std::vector<void*>& k, const std::vector<void*>& v, int max_context,
                float* scales = nullptr);
    // The next forward() first measures its K and V (per layer) and sets the FP8 scales from them
    // (max |K| / 200, max |V| / 100) before writing the cache; later forwards use those scales.
    void calibrate_kv_scales_on_next_forward() { calibrate_ = true; }

    // Enqueues the forward pass; logits of rows [0, num_logit_rows) end up in logits().
    void forward(const StepInputs& in, const StepCounts& c, cudaStream_t stream);
    // Enqueues penalties and sampling of the logits rows into out[0, num_logit_rows).
    void sample(const StepInputs& in, const StepCounts& c, int32_t* out, cudaStream_t stream);

    float* logits() const { return logits_.get(); }
    int vocab() const { return config_.vocab_size; }
    // Bytes of every step buffer and workspace this runner holds (the linears' included).
    size_t activation_bytes() const;
    // Bytes of the step buffers a runner allocates for these limits and a longest context of
    // max_context (the decode attention workspace grows with it); the linears' workspaces excluded.
    static size_t buffer_bytes(const ModelConfig& config, const RunnerConfig& rc, int max_context);
    size_t linear_workspace_bytes() const { return linear_.workspace_bytes(); }
    const LinearPathCounts& linear_counts() const { return linear_.counts(); }
    const RunnerConfig& config() const { return rc_; }
    // Decode-attention partitions for a block-table width (grid size; graphs use it as a constant).
    int decode_partitions(int table_width) const;

private:
    __half* buffer(StepBuffer b) const;
    void attention(const Launch& k, const StepInputs& in, const StepCounts& c, cudaStream_t stream);
    // Layer `layer`'s pools with their element type and (FP8) scales, as rope_write_kv writes them.
    KvWriteTarget kv_write_target(int layer) const;

    const ModelConfig& config_;
    const DeviceModel& model_;
    RunnerConfig rc_;
    LinearRunner linear_;
    KvLayout layout_;
    std::vector<void*> k_pools_, v_pools_;
    float* kv_scales_ = nullptr;
    bool calibrate_ = false;
    DeviceBuffer<float> kv_amax_;  // calibration: [2 * num_layers]
    int qkv_width_ = 0;
    DeviceBuffer<float> residual_;   // [T, hidden]
    DeviceBuffer<__half> normed_;    // [T, hidden]
    DeviceBuffer<__half> qkv_;       // [T, qkv_width]
    DeviceBuffer<__half> attn_;      // [T, heads * head_dim]
    DeviceBuffer<__half> proj_;      // [T, hidden]: o_proj and down outputs
    DeviceBuffer<__half> gate_up_;   // [T, 2 * intermediate]
    DeviceBuffer<__half> act_;       // [T, intermediate]
    DeviceBuffer<__half> final_;     // [S, hidden]
    DeviceBuffer<float> logits_;     // [S, vocab]
    DeviceBuffer<float> attn_workspace_;
};

}  // namespace folio::cuda
