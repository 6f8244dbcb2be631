#include "kernels/memory_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/core/error.h"
#include "engine/model/architectures.h"
#include "engine/model/model.h"
#include "kernels/launch_plan.h"

namespace folio::cuda {

std::string gb(double bytes) {
    char buf[32];
    if (bytes >= 1e9) std::snprintf(buf, sizeof(buf), "%.1f GB", bytes / 1e9);
    else std::snprintf(buf, sizeof(buf), "%.0f MB", bytes / 1e6);
    return buf;
}

uint64_t device_weight_bytes(const Model& model) {
    auto lin = [](const Linear& l) -> uint64_t {
        if (l.kind == Linear::Kind::Fp8) return uint64_t(l.in) * l.out + uint64_t(l.out) * 4;  // codes + a scale per row
        if (l.kind == Linear::Kind::Awq)
            return uint64_t(l.in) * l.out / 2 + uint64_t(l.in / l.awq.group_size) * l.out / 2 +
                   uint64_t(l.in / l.awq.group_size) * l.out * 2;
        return uint64_t(l.in) * l.out * 2;
    };
    // What upload_model uploads: the embedding table in fp16, every norm the launches read in fp32
    // ([hidden] each, the final norm too; Qwen3's q and k head norms, [head_dim] each), Qwen2's q|k|v
    // biases in fp32, every linear of the plan (lm_head only when it is not the embedding table). The
    // RoPE tables (a few hundred bytes) are left out.
    const ModelPlan plan = plan_model(model.config, model.weights);
    const LaunchPlan launches = plan_launches(plan);
    const uint64_t norm = uint64_t(model.config.hidden_size) * 4;
    uint64_t b = uint64_t(plan.tensor(plan.embed).numel()) * 2 + norm;
    for (const Launch& k : launches.launches) {
        if (k.op == Launch::Op::Norm) b += norm;
        if (k.op == Launch::Op::HeadNorm) b += uint64_t(model.config.head_dim) * 2 * 4;
        for (int w : k.widths) b += uint64_t(w) * 4;  // QkvBias
        for (LinearRef r : k.parts) b += lin(plan.linear(r));
    }
    if (!plan.tied_embeddings) b += lin(plan.linear(plan.lm_head));
    return b;
}

uint64_t kv_bytes_for_tokens(const Model& model, int64_t tokens, KvCacheDtype dtype) {
    const ModelConfig& c = model.config;
    return uint64_t(tokens) * 2 * uint64_t(c.num_layers) * uint64_t(c.num_kv_heads) * uint64_t(c.head_dim) * (is_fp8(dtype) ? 1 : 2);
}

double usable_bytes(const DeviceMemory& now, double utilization, uint64_t ours_in_use) {
    const double used = double(now.total) - double(now.free);
    return double(now.total) * utilization - std::max(0.0, used - double(ours_in_use));
}

void check_fits(const std::string& device, const MemoryNeed& need, const DeviceMemory& now, double utilization,
                uint64_t ours_in_use) {
    const double usable = usable_bytes(now, utilization, ours_in_use);
    const double wanted = double(need.weights) + double(need.activations) + double(need.min_kv);
    if (wanted <= usable) return;
    const double others = std::max(0.0, double(now.total) - double(now.free) - double(ours_in_use));
    std::string msg = "the model does not fit on " + device + ": weights " + gb(double(need.weights)) + " + activations " +
                      gb(double(need.activations)) + " + minimum KV cache " + gb(double(need.min_kv));
    if (!need.min_kv_what.empty()) msg += " (" + need.min_kv_what + ")";
    msg += " = " + gb(wanted) + " > " + gb(std::max(0.0, usable)) + " usable (gpu_memory_utilization " +
           std::to_string(int(std::lround(utilization * 100))) + "% of " + gb(double(now.total)) + ", less " + gb(others) +
           " held by the CUDA context and other processes). Free GPU memory";
    if (utilization < 0.95) msg += ", raise gpu_memory_utilization";
    msg += ", lower max_num_batched_tokens / max_num_seqs (activations) or use a smaller or AWQ-quantised model";
    throw Error(msg);
}

int64_t plan_kv_pool(const std::string& device, const MemoryNeed& need, const DeviceMemory& now, double utilization,
                     uint64_t bytes_per_block, uint64_t budget_bytes, int64_t min_blocks) {
    if (bytes_per_block == 0) throw Error("plan_kv_pool: a KV block of zero bytes");
    MemoryNeed with_kv = need;
    with_kv.min_kv = uint64_t(std::max<int64_t>(min_blocks, 0)) * bytes_per_block;
    if (with_kv.min_kv_what.empty()) with_kv.min_kv_what = std::to_string(min_blocks) + " blocks";
    check_fits(device, with_kv, now, utilization, need.weights + need.activations);
    const double left = usable_bytes(now, utilization, need.weights + need.activations) - double(need.weights) - double(need.activations);
    int64_t blocks = left > 0 ? int64_t(left / double(bytes_per_block)) : 0;
    if (budget_bytes > 0) blocks = std::min<int64_t>(blocks, int64_t(budget_bytes / bytes_per_block));
    if (blocks < min_blocks)  // only a budget_bytes below the minimum gets here
        throw Error("the KV cache budget of " + gb(double(budget_bytes)) + " holds " + std::to_string(blocks) + " blocks; the engine needs " +
                    std::to_string(min_blocks) + " (" + with_kv.min_kv_what + "): raise the KV cache size");
    return blocks;
}

}  // namespace folio::cuda
