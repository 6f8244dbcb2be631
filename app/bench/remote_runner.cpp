#include "app/bench/remote_runner.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

namespace folio::bench {

RunResult run_remote_workload(remote::RemoteEngine& engine, const Workload& workload, int concurrency) {
    using Clock = std::chrono::steady_clock;
    const size_t n = workload.requests.size();
    RunResult out;
    out.records.resize(n);
    std::unordered_map<RequestId, size_t> index_of;
    auto events = std::make_shared<EventQueue>();  // every request's events, in one queue
    const Clock::time_point start = Clock::now();
    auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    size_t next = 0, done = 0;
    int in_flight = 0;
    double first_submit = -1;
    while (done < n) {
        while (next < n && workload.requests[next].arrival_s <= since_start() && (concurrency <= 0 || in_flight < concurrency)) {
            RequestRecord& r = out.records[next];
            r.index = next;
            r.submit_s = since_start();
            if (first_submit < 0) first_submit = r.submit_s;
            index_of[engine.submit(workload.requests[next].request, EventQueue::sink_of(events))] = next;
            ++next;
            ++in_flight;
        }
        // Wake for the next arrival at the latest; events are timestamped as they are taken, which
        // is at most a wake-up after the chunk arrived (each request's thread queues them at once).
        double wait_s = 0.05;
        if (next < n && (concurrency <= 0 || in_flight < concurrency))
            wait_s = std::clamp(workload.requests[next].arrival_s - since_start(), 0.0, 0.05);
        for (Event& e : events->wait(std::chrono::milliseconds(int64_t(wait_s * 1000)))) {
            const double t = since_start();
            const auto it = index_of.find(e.id);
            if (it == index_of.end()) continue;
            RequestRecord& r = out.records[it->second];
            if (e.kind == Event::Kind::Token) {
                if (r.token_s.empty()) r.first_token_s = t;
                r.token_s.push_back(t);  // one per streamed chunk (folio-server: one per token with text)
                continue;
            }
            r.end_s = t;
            r.reason = e.reason;
            r.timings = e.timings;
            r.output_tokens = e.timings.generated_tokens;  // the server's usage count
            r.prompt_tokens = e.timings.prompt_tokens;
            if (e.kind == Event::Kind::Error) r.error = e.message.empty() ? "error" : e.message;
            ++done;
            --in_flight;
        }
    }
    double last_end = 0;
    for (const auto& r : out.records) last_end = std::max(last_end, r.end_s);
    out.duration_s = last_end - std::max(0.0, first_submit);
    return out;
}

}  // namespace folio::bench
