#pragma once
// How the SIMT harness runs a grid: every block in turn, each block's threads as fibers that switch
// only at collectives. The schedule (which ready thread runs next, which block goes first) can be
// forward, reverse or shuffled, so that tests can shake out races a single order would hide.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "simt_device.h"

namespace folio::simt {

// A fault the harness found in a kernel or a launch: deadlock, mismatched warp masks, a shuffle from
// a lane outside the mask, too much shared memory, a bad launch configuration.
struct SimtError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class Schedule { Forward, Reverse, Shuffled };

struct HarnessOptions {
    Schedule schedule = Schedule::Forward;
    uint64_t seed = 1;              // for Schedule::Shuffled
    unsigned char smem_poison = 0xff;  // dynamic shared memory fill at every block start (NaN as fp16/fp32)
    size_t default_max_dynamic_smem = 48 * 1024;  // without cudaFuncSetAttribute, as on the device
    size_t max_dynamic_smem_optin = 99 * 1024;      // the RTX 4090's opt-in limit
};
HarnessOptions& options();

// Runs `body` as every thread of every block of the grid. Throws SimtError on a fault.
void run_grid(const void* kernel, dim3 grid, dim3 block, size_t dynamic_smem, const std::function<void()>& body);

// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes).
void set_max_dynamic_smem(const void* kernel, size_t bytes);

// Statistics of the last run_grid, for harness tests and tuning.
struct RunStats {
    uint64_t blocks = 0;
    uint64_t switches = 0;
};
RunStats last_run_stats();

// cp.async emulation: copies are queued per thread and land only when a wait_group covers them, so a
// kernel that reads shared memory before waiting reads stale (poisoned) data, as it could on the device.
void cp_async(void* dst, const void* src, int bytes, int src_bytes);
void cp_async_commit();
void cp_async_wait(int pending_groups_allowed);

}  // namespace folio::simt
