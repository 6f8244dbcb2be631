#pragma once
// Speed and time left of a transfer, from (time, bytes) samples over a sliding window: steady
// enough to read, quick to follow a change of speed.
#include <chrono>
#include <cstdint>
#include <deque>
#include <utility>

namespace folio::hub {

class TransferRate {
public:
    using Clock = std::chrono::steady_clock;
    explicit TransferRate(std::chrono::milliseconds window = std::chrono::milliseconds(5000)) : window_(window) {}

    // `bytes`: the running total transferred (not a delta).
    void sample(Clock::time_point t, uint64_t bytes) {
        samples_.emplace_back(t, bytes);
        while (samples_.size() > 2 && samples_.front().first < t - window_) samples_.pop_front();
    }
    // Bytes per second over the window; 0 until two samples a little apart exist.
    double bytes_per_second() const {
        if (samples_.size() < 2) return 0.0;
        const auto& [t0, b0] = samples_.front();
        const auto& [t1, b1] = samples_.back();
        const double secs = std::chrono::duration<double>(t1 - t0).count();
        if (secs < 0.2 || b1 < b0) return 0.0;
        return double(b1 - b0) / secs;
    }
    // Seconds until `remaining` more bytes are in at the current speed; -1 when unknown.
    double eta_seconds(uint64_t remaining) const {
        const double r = bytes_per_second();
        return r > 0 ? double(remaining) / r : (remaining == 0 ? 0.0 : -1.0);
    }
    void reset() { samples_.clear(); }

private:
    std::chrono::milliseconds window_;
    std::deque<std::pair<Clock::time_point, uint64_t>> samples_;
};

}  // namespace folio::hub
