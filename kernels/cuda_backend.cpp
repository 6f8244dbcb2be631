#include "kernels/cuda_backend.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "engine/model/model.h"
#include "kernels/attention.h"
#include "kernels/common/cuda_check.h"
#include "kernels/decode_graphs.h"
#include "kernels/device_buffer.h"
#include "kernels/device_model.h"
#include "kernels/gpu_monitor.h"
#include "kernels/linear_runner.h"
#include "kernels/memory_plan.h"
#include "kernels/model_runner.h"
#include "kernels/rope_kv.h"
#include "kernels/step_inputs.h"

namespace folio {

namespace cuda {
namespace {

DeviceMemory device_memory() {
    size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    return {total_b, free_b};
}

// An integer setting from the environment; text that is not a whole integer is refused by name
// (atoi read "512k" as 512 and "abc" as 0, and the range error then quoted a number nobody wrote).
int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    const std::string_view text(v);
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        throw Error(std::string(name) + " must be a whole number, not \"" + std::string(text) + "\"");
    return value;
}

class CudaBackend final : public Backend {
public:
    CudaBackend(const Model& model, const BackendOptions& options);
    ~CudaBackend() override {
        if (stream_) cudaStreamSynchronize(stream_->get());
    }

    std::string name() const override { return "cuda"; }
    std::string device_name() const override { return device_name_; }
    size_t kv_bytes_per_block(const KvLayout& layout) const override { return layout.bytes_per_block(layout.element_bytes(sizeof(__half))); }
    int64_t plan_kv_blocks(const KvLayout& layout, uint64_t budget_bytes, int64_t min_blocks) const override;
    void allocate_kv(const KvLayout& layout) override;
    void forward(const ForwardBatch& batch, std::vector<float>& logits) override;
    bool forward_and_sample(const ForwardBatch& batch, const std::vector<SamplingRow>& rows, std::vector<int32_t>& sampled) override;
    void copy_blocks(const std::vector<std::pair<int32_t, int32_t>>& src_dst) override;
    MemoryInfo memory() const override;
    const LinearPathCounts& linear_counts() const { return runner_->linear_counts(); }

private:
    void profile_activations();
    void set_pools(const KvLayout& layout, int max_context);
    void enqueue_sampled_step(const StepCounts& c);
    void finish_sampled_step(int rows, std::vector<int32_t>& sampled);
    cudaStream_t s() const { return stream_->get(); }
    int tile_rows() const { return prefill_tile_rows(model_.config.head_dim); }

    const Model& model_;
    BackendOptions options_;
    std::string device_name_;
    int sm_count_ = 1;
    std::unique_ptr<Stream> stream_;
    std::unique_ptr<GpuMonitor> monitor_;
    DeviceModel weights_;
    RunnerConfig rc_;
    std::unique_ptr<ModelRunner> runner_;
    std::unique_ptr<StepInputs> inputs_;
    KvLayout layout_;
    std::vector<DeviceBuffer<unsigned char>> k_pools_, v_pools_;  // fp16 or FP8 elements (layout_.dtype)
    DeviceBuffer<void*> pool_ptrs_;
    DeviceBuffer<float> kv_scales_;  // FP8: K and V scale of each layer
    DeviceBuffer<int32_t> sampled_dev_;
    PinnedBuffer<int32_t> sampled_host_;
    DeviceBuffer<int32_t> pairs_dev_;
    PinnedBuffer<int32_t> pairs_host_;
    std::unique_ptr<Event> pairs_done_;
    DecodeGraphs graphs_;
};

CudaBackend::CudaBackend(const Model& model, const BackendOptions& options) : model_(model), options_(options) {
    check(cudaSetDevice(options.device), "cudaSetDevice");
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, options.device), "cudaGetDeviceProperties");
    device_name_ = prop.name;
    sm_count_ = std::max(1, prop.multiProcessorCount);
    if (prop.major < 8)
        throw Error("CUDA backend: " + device_name_ + " has compute capability " + std::to_string(prop.major) + "." +
                    std::to_string(prop.minor) + "; the kernels need 8.0 or newer (tensor-core mma.sync, cp.async); use --backend cpu");
    if (!(options.gpu_memory_utilization > 0.0f && options.gpu_memory_utilization <= 1.0f))
        throw Error("gpu_memory_utilization must be in (0, 1], not " + std::to_string(options.gpu_memory_utilization));
    check_model_supported(model);
    stream_ = std::make_unique<Stream>();
    monitor_ = std::make_unique<GpuMonitor>(options.device);
    pairs_done_ = std::make_unique<Event>();

    rc_.max_seqs = std::max(1, options.max_num_seqs);
    rc_.max_tokens = std::max(std::max(1, options.max_num_batched_tokens), rc_.max_seqs);
    rc_.max_model_len = std::max(1, model.context_length());
    rc_.partition_size = env_int("FOLIO_CUDA_PARTITION_SIZE", 512);
    if (rc_.partition_size < 16 || rc_.partition_size > 2048)
        throw Error("FOLIO_CUDA_PARTITION_SIZE must be between 16 and 2048 keys, not " + std::to_string(rc_.partition_size));
    rc_.sliding_window = attention_window(model.config);
    rc_.policy = LinearPolicy::from_environment();
    // FP8 tensor cores (mma e4m3) exist from sm_89 (Ada, Hopper); below, FP8 weights run weight-only.
    rc_.policy.fp8_w8a8 = rc_.policy.fp8_w8a8 && prop.major * 10 + prop.minor >= 89;
    if (const char* g = std::getenv("FOLIO_CUDA_GRAPHS"); g && std::string(g) == "0") options_.cuda_graphs = false;

    // Before a byte is uploaded: weights, step buffers and one full-context sequence's KV must fit.
    MemoryNeed need;
    need.weights = device_weight_bytes(model);
    need.activations = ModelRunner::buffer_bytes(model.config, rc_, rc_.max_model_len) +
                       LinearRunner::fixed_workspace_bytes(largest_fused_awq_elems(model), rc_.max_tokens, rc_.policy, largest_fp8_in(model));
    need.min_kv = kv_bytes_for_tokens(model, rc_.max_model_len, options.kv_cache_dtype);
    need.min_kv_what = "one " + std::to_string(rc_.max_model_len) + "-token sequence";
    const DeviceMemory before = device_memory();
    check_fits(device_name_, need, before, options.gpu_memory_utilization, 0);
    try {
        weights_ = upload_model(model, s(), options.progress);
        runner_ = std::make_unique<ModelRunner>(model.config, weights_, rc_, sm_count_);
        sampled_dev_ = DeviceBuffer<int32_t>(size_t(rc_.max_seqs), "sampled ids");
        sampled_host_ = PinnedBuffer<int32_t>(size_t(rc_.max_seqs));
        profile_activations();
    } catch (const DeviceOutOfMemory& e) {
        // Someone else took memory meanwhile, or the estimate fell short: say what was being loaded.
        throw Error(std::string(e.what()) + " while loading the model onto " + device_name_ + ": it needs weights " +
                    gb(double(need.weights)) + " + activations about " + gb(double(need.activations)) + "; " +
                    gb(double(before.free)) + " of " + gb(double(before.total)) +
                    " were free before loading. Free GPU memory, lower max_num_batched_tokens / max_num_seqs or use a smaller model");
    }
}

// Runs the largest step once on a one-block pool: every kernel module gets loaded and every
// workspace allocated, so the memory left afterwards is what the KV pool can have.
void CudaBackend::profile_activations() {
    KvLayout tmp;
    tmp.num_layers = model_.config.num_layers;
    tmp.num_kv_heads = model_.config.num_kv_heads;
    tmp.head_dim = model_.config.head_dim;
    tmp.block_size = 16;
    tmp.num_blocks = 1;
    set_pools(tmp, rc_.max_model_len);
    // Half the sequences decode (one token), the rest share the remaining tokens as prefill chunks:
    // both attention kernels, every linear at its largest row count, lm_head and the sampler run.
    const int S = std::min(rc_.max_seqs, rc_.max_tokens);
    const int decodes = S / 2, prefills = S - decodes;
    const int T = std::min(rc_.max_tokens, decodes + prefills * rc_.max_model_len);
    const int prefill_tokens = T - decodes;
    ForwardBatch b;
    b.tokens.assign(size_t(T), 0);
    int off = 0;
    for (int i = 0; i < S; ++i) {
        SeqSlice sl;
        sl.seq_id = -1;
        sl.token_offset = off;
        const int p = i - decodes;
        sl.num_tokens = i < decodes ? 1 : prefill_tokens / prefills + (p < prefill_tokens % prefills ? 1 : 0);
        sl.num_blocks = (sl.num_tokens + 15) / 16;
        sl.block_table_offset = int(b.block_tables.size());
        sl.want_logits = true;
        b.block_tables.insert(b.block_tables.end(), size_t(sl.num_blocks), 0);
        b.seqs.push_back(sl);
        off += sl.num_tokens;
    }
    SamplingParams params;  // greedy: the same kernels as sampling, at a fraction of the cost
    params.temperature = 0.0f;
    std::vector<SamplingRow> rows(static_cast<size_t>(S));
    for (auto& r : rows) r.params = &params;
    std::vector<int32_t> ids;
    forward_and_sample(b, rows, ids);
    check(cudaStreamSynchronize(s()), "profile step");
    // The real pools come with allocate_kv.
    k_pools_.clear();
    v_pools_.clear();
    inputs_.reset();
}

void CudaBackend::set_pools(const KvLayout& layout, int max_context) {
    graphs_.clear();
    layout_ = layout;
    k_pools_.clear();
    v_pools_.clear();
    const size_t bytes = size_t(layout.num_blocks) * size_t(layout.block_elems()) * layout.element_bytes(sizeof(__half));
    std::vector<void*> kp, vp, all;
    for (int l = 0; l < layout.num_layers; ++l) {
        k_pools_.emplace_back(bytes, "KV cache");
        v_pools_.emplace_back(bytes, "KV cache");
        check(cudaMemsetAsync(k_pools_.back().get(), 0, k_pools_.back().bytes(), s()), "cudaMemset");
        check(cudaMemsetAsync(v_pools_.back().get(), 0, v_pools_.back().bytes(), s()), "cudaMemset");
        kp.push_back(k_pools_.back().get());
        vp.push_back(v_pools_.back().get());
        all.push_back(kp.back());
        all.push_back(vp.back());
    }
    pool_ptrs_ = DeviceBuffer<void*>(all.size(), "KV pool table");
    check(cudaMemcpy(pool_ptrs_.get(), all.data(), all.size() * sizeof(void*), cudaMemcpyHostToDevice), "cudaMemcpy");
    // The checkpoint's per-layer scales (1.0 without them); calibration may replace them on the device.
    std::vector<float> scales;
    for (const auto& L : model_.weights.layers) {
        scales.push_back(L.k_scale);
        scales.push_back(L.v_scale);
    }
    kv_scales_ = DeviceBuffer<float>(std::max<size_t>(scales.size(), 1), "KV cache scales");
    check(cudaMemcpy(kv_scales_.get(), scales.data(), scales.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    runner_->set_kv(layout, kp, vp, max_context, kv_scales_.get());
    inputs_.reset();
    inputs_ = std::make_unique<StepInputs>(
        step_capacity(rc_.max_tokens, rc_.max_seqs, max_context, layout.block_size, tile_rows(), model_.config.vocab_size));
    check(cudaStreamSynchronize(s()), "KV allocation");
}

int64_t CudaBackend::plan_kv_blocks(const KvLayout& layout, uint64_t budget_bytes, int64_t min_blocks) const {
    MemoryNeed need;
    need.weights = weights_.bytes;
    need.activations = runner_->activation_bytes();
    need.min_kv_what = std::to_string(min_blocks) + " blocks of " + std::to_string(layout.block_size) + " tokens";
    return plan_kv_pool(device_name_, need, device_memory(), options_.gpu_memory_utilization, kv_bytes_per_block(layout), budget_bytes,
                        min_blocks);
}

void CudaBackend::allocate_kv(const KvLayout& layout) {
    const ModelConfig& c = model_.config;
    if (layout.num_layers != c.num_layers || layout.num_kv_heads != c.num_kv_heads || layout.head_dim != c.head_dim ||
        layout.block_size <= 0 || layout.num_blocks <= 0)
        throw Error("CUDA backend: KV layout does not match the model");
    const int64_t pool_tokens = layout.num_blocks * layout.block_size;
    // Under a sliding window the engine releases blocks that leave it, so a block table (released
    // entries included) may span the whole context even when the pool holds less; the decode
    // workspace stays bounded by the window either way.
    const int64_t max_context = rc_.sliding_window > 0 ? rc_.max_model_len : std::min<int64_t>(rc_.max_model_len, pool_tokens);
    set_pools(layout, int(max_context));
    // The profile step ran on a throwaway pool; the first real batch calibrates.
    if (options_.kv_scales_from_first_batch && is_fp8(layout.dtype)) runner_->calibrate_kv_scales_on_next_forward();
}

void CudaBackend::forward(const ForwardBatch& batch, std::vector<float>& logits) {
    if (!inputs_) throw Error("CUDA backend: forward() before allocate_kv()");
    PackOptions po;
    po.tile_rows = tile_rows();
    po.sliding_window = rc_.sliding_window;
    const StepCounts c = pack_step(batch, nullptr, layout_, model_.config.vocab_size, po, *inputs_);
    inputs_->upload(c, s());
    runner_->forward(*inputs_, c, s());
    const size_t n = size_t(c.num_logit_rows) * size_t(model_.config.vocab_size);
    logits.resize(n);
    if (n) check(cudaMemcpyAsync(logits.data(), runner_->logits(), n * sizeof(float), cudaMemcpyDeviceToHost, s()), "logits download");
    check(cudaStreamSynchronize(s()), "forward");
}

void CudaBackend::enqueue_sampled_step(const StepCounts& c) {
    inputs_->upload(c, s());
    runner_->forward(*inputs_, c, s());
    runner_->sample(*inputs_, c, sampled_dev_.get(), s());
    if (c.num_logit_rows > 0)
        check(cudaMemcpyAsync(sampled_host_.get(), sampled_dev_.get(), size_t(c.num_logit_rows) * sizeof(int32_t),
                              cudaMemcpyDeviceToHost, s()),
              "sampled ids download");
}

void CudaBackend::finish_sampled_step(int rows, std::vector<int32_t>& sampled) {
    check(cudaStreamSynchronize(s()), "decode step");  // the one wait of a step: for the sampled ids
    sampled.assign(sampled_host_.get(), sampled_host_.get() + rows);
    for (int i = 0; i < rows; ++i)
        if (sampled[size_t(i)] < 0)
            throw Error("sampler: every logit of a row is NaN or -inf, so no token can be chosen (the forward pass produced "
                        "no usable scores)");
}

bool CudaBackend::forward_and_sample(const ForwardBatch& batch, const std::vector<SamplingRow>& rows,
                                     std::vector<int32_t>& sampled) {
    if (!inputs_) throw Error("CUDA backend: forward() before allocate_kv()");
    const int S = int(batch.seqs.size());
    const int R = batch.num_logit_rows();
    // Very many penalised ids (hundreds of long conversations with penalties): the step's id list
    // would overflow its buffer, so this step is left to the host sampler (the same tokens, only slower).
    if (penalty_ids_bound(rows) > inputs_->capacity().max_penalty_ids) return false;
    bool graph = options_.cuda_graphs && S > 0 && R == S && S <= rc_.max_seqs;
    int width = 0;
    for (const auto& sq : batch.seqs) {
        graph = graph && sq.num_tokens == 1;
        width = std::max(width, (sq.context_before + sq.num_tokens + layout_.block_size - 1) / layout_.block_size);
    }
    for (const auto& r : rows)
        if (r.params && (r.params->repetition_penalty != 1.0f || r.params->presence_penalty != 0.0f ||
                         r.params->frequency_penalty != 0.0f))
            graph = false;  // penalty id lists vary in size: eager
    PackOptions po;
    po.tile_rows = tile_rows();
    po.sliding_window = rc_.sliding_window;
    if (!graph) {
        const StepCounts c = pack_step(batch, &rows, layout_, model_.config.vocab_size, po, *inputs_);
        enqueue_sampled_step(c);
        finish_sampled_step(R, sampled);
        return true;
    }
    po.pad_decode_to = DecodeGraphs::padded_batch(S, rc_.max_seqs);
    po.table_width = DecodeGraphs::padded_width(width, inputs_->capacity().max_blocks_per_seq);
    const StepCounts c = pack_step(batch, &rows, layout_, model_.config.vocab_size, po, *inputs_);
    const DecodeGraphs::Key key{po.pad_decode_to, po.table_width};
    if (graphs_.has(key)) {
        graphs_.launch(key, s());
        finish_sampled_step(R, sampled);
        return true;
    }
    // First time for this shape: run it eagerly (loads every module), then capture it for next time.
    enqueue_sampled_step(c);
    finish_sampled_step(R, sampled);
    graphs_.capture(key, s(), [&] { enqueue_sampled_step(c); });
    return true;
}

void CudaBackend::copy_blocks(const std::vector<std::pair<int32_t, int32_t>>& src_dst) {
    if (src_dst.empty()) return;
    if (k_pools_.empty()) throw Error("CUDA backend: copy_blocks() before allocate_kv()");
    for (const auto& [a, b] : src_dst)
        if (a < 0 || b < 0 || a >= layout_.num_blocks || b >= layout_.num_blocks)
            throw Error("CUDA backend: copy_blocks with a block outside the pool (" + std::to_string(a) + " -> " +
                        std::to_string(b) + ")");
    // All pairs are copied at once: a block written by one pair must be no other pair's source or
    // destination (copy-on-write always copies into fresh blocks).
    std::unordered_set<int32_t> written;
    for (const auto& [a, b] : src_dst) {
        if (a == b) throw Error("CUDA backend: copy_blocks copies block " + std::to_string(a) + " onto itself");
        if (!written.insert(b).second) throw Error("CUDA backend: copy_blocks writes block " + std::to_string(b) + " twice in one call");
    }
    for (const auto& [a, b] : src_dst)
        if (written.count(a))
            throw Error("CUDA backend: copy_blocks reads block " + std::to_string(a) + " that the same call overwrites");
    check(cudaEventSynchronize(pairs_done_->get()), "copy_blocks");  // the previous copy has read the pinned pairs
    if (pairs_host_.size() < 2 * src_dst.size()) {
        pairs_host_ = PinnedBuffer<int32_t>(2 * src_dst.size());
        pairs_dev_ = DeviceBuffer<int32_t>(2 * src_dst.size(), "copy_blocks pairs");
    }
    for (size_t i = 0; i < src_dst.size(); ++i) {
        pairs_host_[2 * i] = src_dst[i].first;
        pairs_host_[2 * i + 1] = src_dst[i].second;
    }
    check(cudaMemcpyAsync(pairs_dev_.get(), pairs_host_.get(), 2 * src_dst.size() * sizeof(int32_t), cudaMemcpyHostToDevice, s()),
          "copy_blocks");
    copy_kv_blocks(pool_ptrs_.get(), int(pool_ptrs_.size()), pairs_dev_.get(), int(src_dst.size()),
                   layout_.block_elems() * int64_t(layout_.element_bytes(sizeof(__half))), s());
    check(cudaEventRecord(pairs_done_->get(), s()), "cudaEventRecord");
}

MemoryInfo CudaBackend::memory() const {
    const GpuReading r = monitor_->read();
    MemoryInfo m;
    m.device_used = r.used;
    m.device_total = r.total;
    m.weights = weights_.bytes;
    for (const auto& p : k_pools_) m.kv_cache += p.bytes();
    for (const auto& p : v_pools_) m.kv_cache += p.bytes();
    m.utilization_pct = r.utilization_pct;
    m.temperature_c = r.temperature_c;
    m.power_w = r.power_w;
    return m;
}

}  // namespace
}  // namespace cuda

int cuda_device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

bool cuda_device_memory(int device, std::string& name, size_t& total, size_t& free) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess || cudaSetDevice(device) != cudaSuccess ||
        cudaMemGetInfo(&free, &total) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    name = prop.name;
    return true;
}

std::unique_ptr<Backend> make_cuda_backend(const Model& model, const BackendOptions& options) {
    return std::make_unique<cuda::CudaBackend>(model, options);
}

cuda::LinearPathCounts cuda_linear_path_counts(const Backend& backend) {
    const auto* b = dynamic_cast<const cuda::CudaBackend*>(&backend);
    if (!b) throw Error("cuda_linear_path_counts: the \"" + backend.name() + "\" backend is not the CUDA backend");
    return b->linear_counts();
}

}  // namespace folio
