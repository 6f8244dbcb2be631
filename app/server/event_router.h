#pragma once
// The threaded Engine delivers every request's events on its one output thread; each HTTP handler
// waits for its own request's. The router hands each event to the request's stream and records the
// latency metrics there (close to the engine, not skewed by a slow client).
//
// Each request it submits names the router as its sink (EngineClient's per-request sinks); the
// engine registers that sink before the request can produce an event, so none is lost. Requests
// others submit to the same engine (the desktop app's chats) go to their own sinks.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "app/server/metrics.h"
#include "engine/frontdoor/engine.h"

namespace folio::server {

// The events of one API request: one engine request per choice, all arriving here in order.
class RequestStream {
public:
    // The engine ids, choice by choice.
    const std::vector<RequestId>& ids() const { return ids_; }
    // The events that came since the last call, waiting up to `timeout` for one.
    std::vector<Event> wait(std::chrono::milliseconds timeout);

private:
    friend class EventRouter;
    void push(Event e);

    std::vector<RequestId> ids_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Event> events_;
};

class EventRouter {
public:
    // The engine must be destroyed (its threads stopped) before the router.
    explicit EventRouter(EngineClient& engine);
    // Where the latency metrics go (null: nowhere, while no server uses the router). Must outlive
    // its use here: set it back to null before destroying it.
    void set_metrics(ServerMetrics* metrics);

    // Submits `request` as one engine request with n replies (Request::n: the prompt prefilled once,
    // its KV blocks shared, choice i sampled with the request's seed plus i, or one the engine picks)
    // and returns the stream their events come to; choice i is engine id first + i.
    std::shared_ptr<RequestStream> submit(Request request, int n = 1);
    // Ends every request of the stream in the engine (a client that went away): their KV blocks are
    // freed within a step.
    void cancel(const RequestStream& stream) {
        if (!stream.ids().empty()) engine_.cancel(stream.ids().front());  // the first id cancels every reply
    }
    // Ends every request submitted here (the server stops serving this engine): each stream gets its
    // Finished(Cancelled) within a step.
    void cancel_all();
    // Requests whose last event has not come yet.
    size_t in_flight() const;

private:
    void on_event(const Event& e);

    EngineClient& engine_;
    ServerMetrics* metrics_ = nullptr;  // under mutex_
    mutable std::mutex mutex_;
    struct Route {
        std::shared_ptr<RequestStream> stream;
        // Output thread only (latency metrics):
        std::chrono::steady_clock::time_point submitted, last_token;
        int tokens = 0;
    };
    std::unordered_map<RequestId, Route> routes_;
};

}  // namespace folio::server
