#pragma once
#include <cstdint>

#include "engine/backend/backend.h"
#include "engine/kv/kv_dtype.h"

namespace folio {

enum class BatchingMode {
    Continuous,  // iteration-level scheduling (the product)
    Static,      // wait for a full batch, run it to its longest end; only for benchmark comparisons
};

struct EngineOptions {
    BackendOptions backend;
    int block_size = 16;
    // KV pool size: an explicit block count wins; else a byte budget (CPU) or gpu_memory_utilization.
    int64_t num_kv_blocks = 0;
    uint64_t kv_cache_bytes = 0;   // 0: CPU default of 1/4 of free RAM, capped at 8 GiB and at
                                   // max_num_seqs full-context sequences (more could never be used)
    // The KV cache's element type: the backend's own (fp32 CPU, fp16 CUDA) or FP8, one byte per
    // element, so the same memory holds 4x (CPU) or 2x (CUDA) the blocks. Scales: see BackendOptions.
    KvCacheDtype kv_cache_dtype = KvCacheDtype::Auto;
    int max_num_seqs = 64;
    int max_num_batched_tokens = 2048;
    bool enable_prefix_caching = true;
    // Sliding-window models (Mistral v0.1): release KV blocks whose keys no later query can attend.
    // Off only to compare against holding the whole context (tests, benchmarks).
    bool free_out_of_window_blocks = true;
    BatchingMode batching = BatchingMode::Continuous;
    int static_batch_size = 16;        // Static mode: how many requests form a batch
    // The threaded Engine (engine/frontdoor/engine.h) renders templates and tokenizes on the step
    // thread instead of its front-door thread. Only to measure what the front door saves (folio-bench
    // --suite frontdoor): every running stream then waits for each new request's input processing.
    bool input_on_step_thread = false;
};

// The backend options an engine runs with: the step limits come from the engine's own, since the
// backend sizes its step buffers (and CUDA graphs) for the largest step the scheduler can build.
inline BackendOptions backend_options_for(const EngineOptions& o) {
    BackendOptions b = o.backend;
    b.max_num_batched_tokens = o.max_num_batched_tokens;
    b.max_num_seqs = o.max_num_seqs;
    b.kv_cache_dtype = o.kv_cache_dtype;
    return b;
}

}  // namespace folio
