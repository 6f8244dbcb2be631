#pragma once
// The interface between the engine and a compute device. A backend owns the model's weights in its
// own layout and the paged KV pools; it runs one ForwardBatch per step. It does not sample on the
// host: the engine does, from forward()'s logits, unless the backend samples on its own device
// (forward_and_sample: the CUDA backend).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend/forward_batch.h"
#include "engine/core/load_progress.h"
#include "engine/kv/kv_dtype.h"
#include "engine/kv/kv_layout.h"
#include "engine/sampling/sampling_row.h"

namespace folio {

struct Model;

struct MemoryInfo {
    uint64_t device_used = 0;   // bytes in use on the device (GPU) or by the process (CPU: RSS)
    uint64_t device_total = 0;  // bytes on the device (GPU) or physical RAM (CPU)
    uint64_t weights = 0;       // bytes of weights as the backend holds them
    uint64_t kv_cache = 0;      // bytes of the KV pools
    // GPU only, when NVML is present; negative when unknown.
    int utilization_pct = -1;
    int temperature_c = -1;
    int power_w = -1;
};

class Backend {
public:
    Backend();
    virtual ~Backend();

    virtual std::string name() const = 0;  // "cpu", "cuda"
    virtual std::string device_name() const = 0;  // "Intel Xeon ... (2 threads)", "NVIDIA GeForce RTX 4090"

    // Bytes one KV block takes (all layers, K and V) in this backend's element type (layout.dtype: the
    // native fp32/fp16, or one byte of FP8).
    virtual size_t kv_bytes_per_block(const KvLayout& layout) const = 0;
    // How many blocks fit in `budget_bytes` (CPU) or in gpu_memory_utilization of the device (CUDA,
    // budget_bytes ignored when 0). Throws folio::Error naming sizes when not even `min_blocks` fit.
    virtual int64_t plan_kv_blocks(const KvLayout& layout, uint64_t budget_bytes, int64_t min_blocks) const = 0;
    // Allocates the KV pools (layout.num_blocks blocks). Called once before the first forward.
    virtual void allocate_kv(const KvLayout& layout) = 0;

    // Runs the model on the batch, writing the KV of every query token into its slot and, for each
    // sequence with want_logits, the logits of its last token: `logits` is resized to
    // [num_logit_rows, vocab] in the order of batch.seqs. Results for a sequence do not depend on
    // the other sequences in the batch.
    virtual void forward(const ForwardBatch& batch, std::vector<float>& logits) = 0;

    // For a backend that samples on its device: forward(), then one token per logits row (rows[i] for
    // the i-th) into `sampled`, following the host sampler's procedure (sampling/sampler.h); true.
    // False, having done nothing, when it does not sample (the default) or cannot for this batch:
    // the caller then runs forward() and samples on the host.
    virtual bool forward_and_sample(const ForwardBatch& batch, const std::vector<SamplingRow>& rows,
                                    std::vector<int32_t>& sampled);

    // Copy-on-write support: copies whole blocks (all layers, K and V), src -> dst.
    virtual void copy_blocks(const std::vector<std::pair<int32_t, int32_t>>& src_dst) = 0;

    virtual MemoryInfo memory() const = 0;
};

enum class BackendKind { Auto, Cpu, Cuda };

// How the CPU backend multiplies activations with quantized weights. Both modes are deterministic
// and batch invariant (a sequence's bits do not depend on the batch around it).
enum class CpuActivations {
    // The default, for people: AWQ matmuls take plain int8 activations per group (as llama.cpp
    // multiplies 4-bit weights with 8-bit activations); about 1e-2 of the logit range.
    Int8,
    // The oracle, for tests and references: activations split into three int8 parts whose products
    // are exact (fp32-class, about 1e-6 relative); dense weights in fp32 arithmetic.
    Exact,
};

struct BackendOptions {
    BackendKind kind = BackendKind::Auto;
    int num_threads = 0;  // CPU: 0 = all hardware threads
    int device = 0;       // CUDA device ordinal
    float gpu_memory_utilization = 0.90f;
    // CPU: how activations meet the weights (see CpuActivations); the fast int8 mode unless asked.
    CpuActivations cpu_activations = CpuActivations::Int8;
    // FP8 KV cache: compute each layer's k/v scales from the first batch written to the cache (max |K|
    // / 200, max |V| / 100, as vLLM's calculate_kv_scales) instead of the checkpoint's or 1.0.
    bool kv_scales_from_first_batch = false;
    // The KV cache's element type the engine will ask for (EngineOptions::kv_cache_dtype): the CUDA
    // backend sizes its smallest acceptable pool with it before the layout comes.
    KvCacheDtype kv_cache_dtype = KvCacheDtype::Auto;
    // CUDA: the largest step the engine will build (activation buffers are sized for it up front,
    // as the KV pool gets what is left); the engine copies its EngineOptions values here.
    int max_num_batched_tokens = 2048;
    int max_num_seqs = 64;
    bool cuda_graphs = true;  // CUDA: replay decode steps from captured graphs
    // The backend's phases of a model load (preparing or uploading weights); may be empty.
    LoadProgressFn progress;
};

// Parses "auto", "cpu", "cuda"; throws folio::Error otherwise. (Making one: engine/backends.)
BackendKind parse_backend_kind(const std::string& s);
// Parses "int8", "exact" (the --cpu-activations flag); throws folio::Error otherwise.
CpuActivations parse_cpu_activations(const std::string& s);
const char* cpu_activations_name(CpuActivations a);

}  // namespace folio
