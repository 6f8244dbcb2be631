#pragma once
// "Will it fit?" before loading: the weights as the backend would hold them, the activations of a
// full step, and the KV cache of the chosen context, against the memory of the device the engine
// would use (the GPU's, as the CUDA backend plans it, else RAM as the CPU backend budgets its KV).
// One function for the CLI and the app.
#include <cstdint>
#include <string>

#include "engine/hub/model_summary.h"

namespace folio::hub {

struct MemoryBudget {
    std::string device;       // "NVIDIA GeForce RTX 4090", "RAM"
    bool gpu = false;
    uint64_t total = 0;       // the device's memory, or physical RAM
    uint64_t usable = 0;      // for weights + activations + KV, as the engine would plan it now
    uint64_t kv_budget = 0;   // CPU: the engine's default KV budget; 0 on a GPU (whatever is left)
    double utilization = 0.9; // GPU: the share of the device the engine plans with
};

// The budget the engine would plan with, from a device reading: a GPU gets `utilization` of its
// memory less what other processes use (as vLLM and the CUDA backend plan); RAM gets what is
// available, and the CPU backend's default KV budget (a quarter of it, at most 8 GiB).
// `ours_in_use`: memory this process holds now that loading another model would release.
MemoryBudget memory_budget(const std::string& device, bool gpu, uint64_t total, uint64_t free, uint64_t ours_in_use = 0,
                           double utilization = 0.9);

struct FitEstimate {
    bool known = false;           // false when the model's shapes or sizes are missing
    bool fits = false;
    int context = 0;              // tokens per conversation this estimate is for
    uint64_t weights = 0;         // as held on the device
    uint64_t activations = 0;     // one full step (2048 tokens), an estimate
    uint64_t kv_per_token = 0;
    uint64_t kv_per_conversation = 0;  // of `context` tokens (a sliding window holds less)
    uint64_t usable = 0;
    int conversations = 0;        // of `context` tokens that fit at once (capped at max_num_seqs, 64)
    std::string verdict;          // one line: "fits: 3 conversations of 32768 tokens" or why not
};

// `context` 0, or more than the model's context: the model's full context (what the engine reserves at
// least one of when it loads).
FitEstimate estimate_fit(const ModelSummary& model, const MemoryBudget& budget, int context = 0);

}  // namespace folio::hub
