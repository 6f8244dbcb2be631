#pragma once
// The CUDA backend's device-memory arithmetic as plain functions, so that what a user meets on a
// 24 GB card (does a 7B model fit at gpu_memory_utilization 0.9, how many KV blocks are left, what
// the error says when it does not fit) is tested without one.
#include <cstdint>
#include <string>

#include "engine/kv/kv_dtype.h"

namespace folio {
struct Model;
}

namespace folio::cuda {

struct DeviceMemory {
    uint64_t total = 0;  // cudaMemGetInfo
    uint64_t free = 0;
};

// What the backend needs on the device.
struct MemoryNeed {
    uint64_t weights = 0;
    uint64_t activations = 0;    // step buffers and workspaces (ModelRunner)
    uint64_t min_kv = 0;         // the smallest KV pool the engine can run with
    std::string min_kv_what;     // how that minimum is made up, e.g. "one 4096-token sequence"
};

// Bytes the weights take on the device: dense matrices and embeddings in fp16, AWQ matrices as
// stored (4-bit weights, 4-bit zeros, fp16 scales); a tied lm_head is the embedding table.
uint64_t device_weight_bytes(const Model& model);

// KV bytes of `tokens` positions of one sequence (all layers, K and V, fp16 or one byte of FP8).
uint64_t kv_bytes_for_tokens(const Model& model, int64_t tokens, KvCacheDtype dtype = KvCacheDtype::Auto);

// As vLLM sizes it: everything this process may hold is gpu_memory_utilization of the device; what
// is in use now (the CUDA context, other processes, and `ours_in_use`: the part of the need already
// allocated) comes off that.
double usable_bytes(const DeviceMemory& now, double utilization, uint64_t ours_in_use);

// Throws folio::Error naming every size when need.weights + need.activations + need.min_kv exceed
// the usable memory, and what would help.
void check_fits(const std::string& device, const MemoryNeed& need, const DeviceMemory& now, double utilization,
                uint64_t ours_in_use);

// KV blocks of `bytes_per_block` the pool gets once weights and activations are allocated
// (ours_in_use = weights + activations): the usable memory left, capped by budget_bytes when not 0.
// Throws (check_fits) when fewer than min_blocks fit.
int64_t plan_kv_pool(const std::string& device, const MemoryNeed& need, const DeviceMemory& now, double utilization,
                     uint64_t bytes_per_block, uint64_t budget_bytes, int64_t min_blocks);

// "3.9 GB" (one decimal), or "512 MB" below a gigabyte.
std::string gb(double bytes);

}  // namespace folio::cuda
