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

EventRouter::EventRouter(Engine& engine, ServerMetrics& metrics) : engine_(engine), metrics_(metrics) {
    engine_.set_event_callback([this](const Event& e) { on_event(e); });
}

std::shared_ptr<RequestStream> EventRouter::submit(Request request) {
    // Submitting under the lock: the output thread cannot look the id up before it is registered
    // (submit never waits for the engine's threads).
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    const RequestId id = engine_.submit(std::move(request));
    auto stream = std::make_shared<RequestStream>(id);
    stream->submitted_ = now;
    streams_[id] = stream;
    return stream;
}

size_t EventRouter::in_flight() const {
    std::lock_guard lock(mutex_);
    return streams_.size();
}

void EventRouter::on_event(const Event& e) {
    std::shared_ptr<RequestStream> stream;
    {
        std::lock_guard lock(mutex_);
        auto it = streams_.find(e.id);
        if (it == streams_.end()) return;
        stream = it->second;
        if (e.kind != Event::Kind::Token) streams_.erase(it);
    }
    const auto now = Clock::now();
    if (e.kind == Event::Kind::Token) {
        if (stream->tokens_++ == 0)
            metrics_.observe_first_token(std::chrono::duration<double>(now - stream->submitted_).count());
        else
            metrics_.observe_inter_token(std::chrono::duration<double>(now - stream->last_token_).count());
        stream->last_token_ = now;
    } else {
        metrics_.observe_finished(e.kind == Event::Kind::Error ? FinishReason::Error : e.reason,
                                  std::chrono::duration<double>(now - stream->submitted_).count(), e.timings.prompt_tokens,
                                  stream->tokens_);
    }
    stream->push(e);
}

}  // namespace folio::server
