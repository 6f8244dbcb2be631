#pragma once
// Tokens per second over the last second or so of steps, for the monitor: recent enough to move
// when load changes, long enough not to flicker from step to step.
#include <chrono>
#include <cstdint>
#include <deque>

namespace folio {

class ThroughputWindow {
public:
    using Clock = std::chrono::steady_clock;
    explicit ThroughputWindow(std::chrono::milliseconds span = std::chrono::milliseconds(1000)) : span_(span) {}

    // A step that ran from `start` to `end` and computed these tokens.
    void add(Clock::time_point start, Clock::time_point end, int64_t prefill_tokens, int64_t decode_tokens) {
        steps_.push_back({start, end, prefill_tokens, decode_tokens});
        while (!steps_.empty() && end - steps_.front().end > span_) steps_.pop_front();
    }
    // Rates at `now`: tokens of the steps that ended within the span, over the time since the first
    // of them started. Zero once the engine has been idle for a whole span.
    double prefill_rate(Clock::time_point now) const { return rate(now, true); }
    double decode_rate(Clock::time_point now) const { return rate(now, false); }

private:
    struct Step {
        Clock::time_point start, end;
        int64_t prefill, decode;
    };
    double rate(Clock::time_point now, bool prefill) const {
        int64_t tokens = 0;
        Clock::time_point first = now;
        for (const Step& s : steps_) {
            if (now - s.end > span_) continue;
            tokens += prefill ? s.prefill : s.decode;
            if (s.start < first) first = s.start;
        }
        const double secs = std::chrono::duration<double>(now - first).count();
        return tokens > 0 && secs > 0 ? double(tokens) / secs : 0.0;
    }

    std::chrono::milliseconds span_;
    std::deque<Step> steps_;
};

}  // namespace folio
