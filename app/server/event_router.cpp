#include "app/server/event_router.h"

namespace folio::server {

using Clock = std::chrono::steady_clock;

std::vector<Event> RequestStream::wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return !events_.empty(); });
    std::vector<Event> out(std::make_move_iterator(events_.begin()), std::make_move_iterator(events_.end()));
    events_.clear();
    return out;
}

void RequestStream::push(Event e) {
    {
        std::lock_guard lock(mutex_);
        events_.push_back(std::move(e));
    }
    cv_.notify_one();
}

EventRouter::EventRouter(EngineClient& engine) : engine_(engine) {}

void EventRouter::set_metrics(ServerMetrics* metrics) {
    std::lock_guard lock(mutex_);
    metrics_ = metrics;
}

void EventRouter::cancel_all() {
    std::vector<RequestId> ids;
    {
        std::lock_guard lock(mutex_);
        for (const auto& [id, route] : routes_) ids.push_back(id);
    }
    for (RequestId id : ids) engine_.cancel(id);
}

std::shared_ptr<RequestStream> EventRouter::submit(Request request, int n) {
    // Submitting under the lock: the output thread cannot look an id up before it is registered
    // (submit never waits for the engine's threads).
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    auto stream = std::make_shared<RequestStream>();
    request.n = n;
    const RequestId first = engine_.submit(std::move(request), [this](const Event& e) { on_event(e); });
    for (int i = 0; i < n; ++i) stream->ids_.push_back(first + RequestId(i));
    for (RequestId id : stream->ids_) routes_[id] = Route{stream, now, now, 0};
    return stream;
}

size_t EventRouter::in_flight() const {
    std::lock_guard lock(mutex_);
    return routes_.size();
}

void EventRouter::on_event(const Event& e) {
    std::shared_ptr<RequestStream> stream;
    const auto now = Clock::now();
    {
        std::lock_guard lock(mutex_);
        auto it = routes_.find(e.id);
        if (it != routes_.end()) {
            Route& r = it->second;
            stream = r.stream;
            if (e.kind == Event::Kind::Token) {
                if (metrics_) {
                    if (r.tokens == 0)
                        metrics_->observe_first_token(std::chrono::duration<double>(now - r.submitted).count());
                    else
                        metrics_->observe_inter_token(std::chrono::duration<double>(now - r.last_token).count());
                }
                ++r.tokens;
                r.last_token = now;
            } else {
                // The n replies share one prefill: their prompt is counted once, with the first.
                const bool first = e.id == stream->ids().front();
                if (metrics_)
                    metrics_->observe_finished(e.kind == Event::Kind::Error ? FinishReason::Error : e.reason,
                                               std::chrono::duration<double>(now - r.submitted).count(),
                                               first ? e.timings.prompt_tokens : 0);
                routes_.erase(it);
            }
        }
    }
    if (stream) stream->push(e);  // outside the lock: the stream's reader takes its own
}

}  // namespace folio::server
