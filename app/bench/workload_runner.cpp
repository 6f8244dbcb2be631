#include "app/bench/workload_runner.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace folio::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Events stamped on arrival at the sink (the engine's thread), for the runner's thread to read.
class StampedEvents {
public:
    explicit StampedEvents(Clock::time_point start) : start_(start) {}
    void push(const Event& e) {
        const double t = std::chrono::duration<double>(Clock::now() - start_).count();
        {
            std::lock_guard lock(mutex_);
            events_.push_back({t, e});
        }
        cv_.notify_one();
    }
    std::deque<std::pair<double, Event>> wait(std::chrono::duration<double> timeout) {
        std::unique_lock lock(mutex_);
        cv_.wait_for(lock, timeout, [&] { return !events_.empty(); });
        return std::exchange(events_, {});
    }

private:
    const Clock::time_point start_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::pair<double, Event>> events_;
};

}  // namespace

RunResult run_workload(EngineClient& engine, const Workload& workload, int concurrency, const std::function<void()>& close_input) {
    const size_t n = workload.requests.size();
    RunResult out;
    out.records.resize(n);
    std::unordered_map<RequestId, size_t> index_of;
    const EngineStats before = engine.stats();
    const Clock::time_point start = Clock::now();
    auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    auto events = std::make_shared<StampedEvents>(start);
    const EventSink sink = [events](const Event& e) { events->push(e); };
    size_t next = 0, done = 0;
    int in_flight = 0;
    bool closed = false;
    double first_submit = -1;

    while (done < n) {
        while (next < n && workload.requests[next].arrival_s <= since_start() && (concurrency <= 0 || in_flight < concurrency)) {
            RequestRecord& r = out.records[next];
            r.index = next;
            r.submit_s = since_start();
            if (first_submit < 0) first_submit = r.submit_s;
            index_of[engine.submit(workload.requests[next].request, sink)] = next;
            ++next;
            ++in_flight;
        }
        if (next == n && !closed) {
            if (close_input) close_input();
            closed = true;
        }
        // Wake for the next arrival at the latest; the events carry the time they reached the sink.
        double wait_s = 0.05;
        if (next < n && (concurrency <= 0 || in_flight < concurrency))
            wait_s = std::clamp(workload.requests[next].arrival_s - since_start(), 0.0, 0.05);
        for (auto& [t, e] : events->wait(std::chrono::duration<double>(wait_s))) {
            const auto it = index_of.find(e.id);
            if (it == index_of.end()) continue;
            RequestRecord& r = out.records[it->second];
            if (e.kind == Event::Kind::Token) {
                if (r.token_s.empty()) r.first_token_s = t;
                if (e.token >= 0) r.ids.push_back(e.token);
                r.token_s.push_back(t);
                continue;
            }
            r.end_s = t;
            r.reason = e.reason;
            r.timings = e.timings;
            r.prompt_ids = std::move(e.prompt_ids);
            // Local: the tokens seen; remote: the server's usage (its chunks are not tokens).
            r.output_tokens = r.ids.empty() ? e.timings.generated_tokens : int(r.ids.size());
            r.prompt_tokens = r.prompt_ids.empty() ? e.timings.prompt_tokens : int(r.prompt_ids.size());
            if (e.kind == Event::Kind::Error) r.error = e.message.empty() ? "error" : e.message;
            ++done;
            --in_flight;
        }
    }
    // Every event counted in a snapshot has been delivered; the last end's snapshot counts the run.
    out.final_stats = engine.stats();
    const EngineStats& after = out.final_stats;
    out.steps = after.steps - before.steps;
    out.mean_batch_seqs = out.steps ? double(after.batched_seqs_total - before.batched_seqs_total) / double(out.steps) : 0;
    out.peak_blocks_used = after.peak_blocks_used;
    const int64_t allocated = after.kv_slots_allocated_total - before.kv_slots_allocated_total;
    const int64_t filled = after.kv_slots_filled_total - before.kv_slots_filled_total;
    out.kv_fragmentation = allocated ? double(allocated - filled) / double(allocated) : 0;
    double last_end = 0;
    for (const auto& r : out.records) last_end = std::max(last_end, r.end_s);
    out.duration_s = last_end - std::max(0.0, first_submit);
    return out;
}

}  // namespace folio::bench
