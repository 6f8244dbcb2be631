#include "app/bench/step_clock.h"

namespace folio::bench {

using Clock = std::chrono::steady_clock;

// Every step calls forward_and_sample first; a backend that does not sample returns false at once
// and forward() follows, so the step started at the first of the two calls.
bool StepClock::forward_and_sample(const ForwardBatch& batch, const std::vector<SamplingRow>& rows, std::vector<int32_t>& sampled) {
    const Clock::time_point start = Clock::now();
    if (!WrappedBackend::forward_and_sample(batch, rows, sampled)) {
        pending_start_ = start;
        return false;
    }
    record(start, start, batch.num_tokens());
    return true;
}

void StepClock::forward(const ForwardBatch& batch, std::vector<float>& logits) {
    const Clock::time_point work_start = Clock::now();
    const Clock::time_point start = pending_start_ == Clock::time_point{} ? work_start : pending_start_;
    pending_start_ = {};
    WrappedBackend::forward(batch, logits);
    record(start, work_start, batch.num_tokens());
}

void StepClock::record(Clock::time_point start, Clock::time_point work_start, int tokens) {
    StepTime s;
    s.start = start;
    s.forward_ms = std::chrono::duration<double, std::milli>(Clock::now() - work_start).count();
    s.tokens = tokens;
    std::lock_guard lock(mutex_);
    steps_.push_back(s);
}

std::vector<StepTime> StepClock::steps() const {
    std::lock_guard lock(mutex_);
    return steps_;
}

}  // namespace folio::bench
