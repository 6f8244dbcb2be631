#pragma once
// A Backend that hands every call on to the real one and notes when each step reached it: the
// step loop's rhythm seen from outside the engine. The time between two steps' starts is a whole
// loop iteration (scheduling, anything else the loop did, the forward pass, sampling), which is
// what a running stream waits between two tokens.
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/backend/backend.h"

namespace folio::bench {

struct StepTime {
    std::chrono::steady_clock::time_point start;  // when the engine handed the step to the backend
    double forward_ms = 0;                        // the backend's own time on it
    int tokens = 0;                               // query tokens in the batch
};

class StepClock final : public Backend {
public:
    explicit StepClock(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

    std::string name() const override { return inner_->name(); }
    std::string device_name() const override { return inner_->device_name(); }
    size_t kv_bytes_per_block(const KvLayout& layout) const override { return inner_->kv_bytes_per_block(layout); }
    int64_t plan_kv_blocks(const KvLayout& layout, uint64_t budget, int64_t min_blocks) const override {
        return inner_->plan_kv_blocks(layout, budget, min_blocks);
    }
    void allocate_kv(const KvLayout& layout) override { inner_->allocate_kv(layout); }
    void forward(const ForwardBatch& batch, std::vector<float>& logits) override;
    bool forward_and_sample(const ForwardBatch& batch, const std::vector<SamplingRow>& rows, std::vector<int32_t>& sampled) override;
    void copy_blocks(const std::vector<std::pair<int32_t, int32_t>>& src_dst) override { inner_->copy_blocks(src_dst); }
    MemoryInfo memory() const override { return inner_->memory(); }

    std::vector<StepTime> steps() const;  // every step so far, in order

private:
    void record(std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point work_start, int tokens);

    std::unique_ptr<Backend> inner_;
    std::chrono::steady_clock::time_point pending_start_{};  // a step the backend declined to sample
    mutable std::mutex mutex_;
    std::vector<StepTime> steps_;
};

}  // namespace folio::bench
