#include "app/bench/workload_runner.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <unordered_map>

namespace folio::bench {

RunResult run_workload(SyncEngine& core, const Workload& workload, int concurrency) {
    using Clock = std::chrono::steady_clock;
    const size_t n = workload.requests.size();
    RunResult out;
    out.records.resize(n);
    std::unordered_map<RequestId, size_t> index_of;
    const Clock::time_point start = Clock::now();
    auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    size_t next = 0, done = 0;
    int in_flight = 0;
    bool closed = false;
    int64_t batch_seqs_sum = 0, slots_allocated = 0, slots_filled = 0;
    double first_submit = -1;
    int64_t steps_seen = 0;

    while (done < n) {
        const double now = since_start();
        while (next < n && workload.requests[next].arrival_s <= now && (concurrency <= 0 || in_flight < concurrency)) {
            RequestRecord& r = out.records[next];
            r.index = next;
            r.submit_s = since_start();
            if (first_submit < 0) first_submit = r.submit_s;
            index_of[core.add(workload.requests[next].request)] = next;
            ++next;
            ++in_flight;
        }
        if (next == n && !closed) {
            core.set_input_closed(true);  // static batching may start a smaller last batch
            closed = true;
        }
        bool can_step = core.has_pending_events() || (core.has_unfinished() && !core.stalled());
        if (!can_step && concurrency > 0 && in_flight >= concurrency && !closed) {
            // Static batching waits for more requests than the concurrency lets in: let it start.
            core.set_input_closed(true);
            closed = true;
            can_step = true;
        }
        if (!can_step) {
            // Nothing to run until the next arrival.
            if (next < n) {
                const double wait = workload.requests[next].arrival_s - since_start();
                if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
            }
            continue;
        }
        std::vector<Event> events = core.step();
        const double t = since_start();
        for (Event& e : events) {
            const auto it = index_of.find(e.id);
            if (it == index_of.end()) continue;
            RequestRecord& r = out.records[it->second];
            if (e.kind == Event::Kind::Token) {
                if (r.ids.empty()) r.first_token_s = t;
                r.ids.push_back(e.token);
                r.token_s.push_back(t);
                continue;
            }
            r.end_s = t;
            r.reason = e.reason;
            r.timings = e.timings;
            r.prompt_ids = std::move(e.prompt_ids);
            r.output_tokens = int(r.ids.size());
            r.prompt_tokens = int(r.prompt_ids.size());
            if (e.kind == Event::Kind::Error) r.error = e.message.empty() ? "error" : e.message;
            ++done;
            --in_flight;
        }
        if (core.steps() > steps_seen) {
            steps_seen = core.steps();
            const KvCounters k = core.scheduler().kv().counters();
            batch_seqs_sum += core.last_batch_seqs();
            slots_allocated += k.slots_allocated;
            slots_filled += k.slots_filled;
            out.peak_blocks_used = std::max(out.peak_blocks_used, k.blocks_used);
        }
    }
    out.final_stats = core.stats();
    out.steps = out.final_stats.steps;
    out.mean_batch_seqs = out.steps ? double(batch_seqs_sum) / double(out.steps) : 0;
    out.kv_fragmentation = slots_allocated ? double(slots_allocated - slots_filled) / double(slots_allocated) : 0;
    double last_end = 0;
    for (const auto& r : out.records) last_end = std::max(last_end, r.end_s);
    out.duration_s = last_end - std::max(0.0, first_submit);
    return out;
}

}  // namespace folio::bench
