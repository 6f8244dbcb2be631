#pragma once
// The threaded Engine delivers every request's events on its one output thread; each HTTP handler
// waits for its own request's. The router hands each event to the request's stream and records the
// latency metrics there (close to the engine, not skewed by a slow client).
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "app/server/metrics.h"
#include "engine/frontdoor/engine.h"

namespace folio::server {

class RequestStream {
public:
    explicit RequestStream(RequestId id) : id_(id) {}
    RequestId id() const { return id_; }
    // The events that came since the last call, waiting up to `timeout` for one.
    std::vector<Event> wait(std::chrono::milliseconds timeout);

private:
    friend class EventRouter;
    void push(Event e);

    const RequestId id_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Event> events_;
    // Output thread only:
    std::chrono::steady_clock::time_point submitted_, last_token_;
    int tokens_ = 0;
};

class EventRouter {
public:
    // Becomes `engine`'s event callback (set before anything is submitted). Both must outlive the
    // router's use; the engine must be destroyed (its threads stopped) before the router.
    EventRouter(Engine& engine, ServerMetrics& metrics);

    // Submits `request` and returns the stream its events come to.
    std::shared_ptr<RequestStream> submit(Request request);
    // Ends the request in the engine (a client that went away): its KV blocks are freed within a step.
    void cancel(RequestId id) { engine_.cancel(id); }
    // Requests whose last event has not come yet.
    size_t in_flight() const;

private:
    void on_event(const Event& e);

    Engine& engine_;
    ServerMetrics& metrics_;
    mutable std::mutex mutex_;
    std::unordered_map<RequestId, std::shared_ptr<RequestStream>> streams_;
};

}  // namespace folio::server
