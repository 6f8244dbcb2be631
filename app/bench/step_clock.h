#pragma once
// A Backend that hands every call on to the real one (WrappedBackend) and notes when each step reached it: the
// step loop's rhythm seen from outside the engine. The time between two steps' starts is a whole
// loop iteration (scheduling, anything else the loop did, the forward pass, sampling), which is
// what a running stream waits between two tokens.
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/backend/wrapped_backend.h"

namespace folio::bench {

struct StepTime {
    std::chrono::steady_clock::time_point start;  // when the engine handed the step to the backend
    double forward_ms = 0;                        // the backend's own time on it
    int tokens = 0;                               // query tokens in the batch
};

class StepClock final : public WrappedBackend {
public:
    using WrappedBackend::WrappedBackend;

    void forward(const ForwardBatch& batch, std::vector<float>& logits) override;
    bool forward_and_sample(const ForwardBatch& batch, const std::vector<SamplingRow>& rows, std::vector<int32_t>& sampled) override;

    std::vector<StepTime> steps() const;  // every step so far, in order

private:
    void record(std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point work_start, int tokens);

    std::chrono::steady_clock::time_point pending_start_{};  // a step the backend declined to sample
    mutable std::mutex mutex_;
    std::vector<StepTime> steps_;
};

}  // namespace folio::bench
