#include "engine/hub/fit_estimate.h"

#include <algorithm>

#include "engine/core/cpu_kv_budget.h"
#include "engine/hub/blob_download.h"

namespace folio::hub {

namespace {

constexpr int kBlockSize = 16;            // the engine's KV block
constexpr int kStepTokens = 2048;         // EngineOptions::max_num_batched_tokens
constexpr int kMaxSeqs = 64;              // EngineOptions::max_num_seqs
constexpr uint64_t kCudaWorkspace = 256ull << 20;  // cuBLAS workspace, graphs, small buffers

}  // namespace

MemoryBudget memory_budget(const std::string& device, bool gpu, uint64_t total, uint64_t free, uint64_t ours_in_use,
                           double utilization) {
    MemoryBudget b;
    b.device = device;
    b.gpu = gpu;
    b.total = total;
    b.utilization = utilization;
    if (gpu) {
        const double others = std::max(0.0, double(total) - double(free) - double(ours_in_use));
        b.usable = uint64_t(std::max(0.0, double(total) * utilization - others));
    } else {
        b.usable = free + ours_in_use;
        b.kv_budget = std::min<uint64_t>(b.usable / 4, 8ull << 30);  // the CPU backend's default
    }
    return b;
}

FitEstimate estimate_fit(const ModelSummary& m, const MemoryBudget& budget, int context) {
    FitEstimate f;
    // A conversation is never longer than the model's context.
    f.context = context > 0 && (m.max_context <= 0 || context < m.max_context) ? context : m.max_context;
    if (m.weight_bytes == 0 || m.num_layers <= 0 || m.num_kv_heads <= 0 || m.head_dim <= 0 || f.context <= 0 ||
        budget.usable == 0) {
        f.verdict = "unknown: the model's size or shapes could not be read";
        return f;
    }
    f.known = true;
    const uint64_t elem = budget.gpu ? 2 : 4;  // KV in fp16 on CUDA, fp32 on the CPU
    f.kv_per_token = 2ull * uint64_t(m.num_layers) * uint64_t(m.num_kv_heads) * uint64_t(m.head_dim) * elem;
    int64_t held = f.context;
    if (m.sliding_window > 0) held = std::min<int64_t>(held, (m.sliding_window / kBlockSize + 2) * kBlockSize);
    held = (held + kBlockSize - 1) / kBlockSize * kBlockSize;
    f.kv_per_conversation = uint64_t(held) * f.kv_per_token;
    f.weights = budget.gpu ? m.weight_bytes - m.f32_weight_bytes / 2 : m.weight_bytes;
    const uint64_t q = uint64_t(m.num_heads) * uint64_t(m.head_dim), kv = uint64_t(m.num_kv_heads) * uint64_t(m.head_dim);
    const uint64_t per_token = 4ull * uint64_t(m.hidden_size) + q + 2 * kv + 3ull * uint64_t(m.intermediate_size);
    f.activations = kStepTokens * per_token * (budget.gpu ? 2 : 4) + uint64_t(kMaxSeqs) * uint64_t(m.vocab_size) * 4 +
                    (budget.gpu ? kCudaWorkspace : 0);
    f.usable = budget.usable;

    const double fixed = double(f.weights) + double(f.activations);
    // The CPU backend's default budget: a quarter of the memory, or one whole conversation when that
    // leaves half of what is left after the weights (default_cpu_kv_budget, as the backend plans it).
    const uint64_t left = double(budget.usable) > fixed ? uint64_t(double(budget.usable) - fixed) : 0;
    const uint64_t cpu_kv_budget = std::max(budget.kv_budget, default_cpu_kv_budget(left, f.kv_per_conversation));
    const double kv_room = budget.gpu ? double(budget.usable) - fixed : std::min<double>(double(cpu_kv_budget), double(budget.usable) - fixed);
    f.conversations = kv_room > 0 ? int(std::min<double>(kMaxSeqs, kv_room / double(f.kv_per_conversation))) : 0;
    f.fits = f.conversations >= 1;
    const std::string ctx = std::to_string(f.context) + "-token";
    const std::string where = budget.gpu ? budget.device + " (" + std::to_string(int(budget.utilization * 100 + 0.5)) +
                                               "% of " + human_bytes(double(budget.total)) + ", less what other processes use)"
                                         : "RAM (" + human_bytes(double(budget.usable)) + " available)";
    if (f.fits) {
        f.verdict = "fits: " + std::to_string(f.conversations) + (f.conversations == kMaxSeqs ? "+" : "") + " conversation" +
                    (f.conversations == 1 ? "" : "s") + " of " + std::to_string(f.context) + " tokens on " +
                    (budget.gpu ? budget.device : std::string("the CPU"));
        return f;
    }
    if (fixed > double(budget.usable)) {
        f.verdict = "does not fit: weights " + human_bytes(double(f.weights)) + " + activations " + human_bytes(double(f.activations)) +
                    " exceed the " + human_bytes(double(budget.usable)) + " usable on " + where +
                    "; a 4-bit (AWQ) build of the model needs about a third of the memory of fp16";
    } else if (!budget.gpu && double(cpu_kv_budget) < double(f.kv_per_conversation)) {
        f.verdict = "does not fit: one " + ctx + " conversation needs " + human_bytes(double(f.kv_per_conversation)) +
                    " of KV cache, more than the CPU backend's budget of " + human_bytes(double(cpu_kv_budget)) +
                    " (a quarter of available RAM, at most 8 GiB, or one conversation if that leaves half of the RAM"
                    " the weights leave): choose a shorter context";
    } else {
        f.verdict = "does not fit: weights " + human_bytes(double(f.weights)) + " + activations " + human_bytes(double(f.activations)) +
                    " + one " + ctx + " conversation " + human_bytes(double(f.kv_per_conversation)) + " > " +
                    human_bytes(double(budget.usable)) + " usable on " + where +
                    ": choose a shorter context or a smaller (4-bit) build";
    }
    return f;
}

}  // namespace folio::hub
