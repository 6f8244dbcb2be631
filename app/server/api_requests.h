#pragma once
// The API requests folio-server has in flight on one engine. Each is submitted with a sink of its own
// (EngineClient's per-request sinks: the engine registers it before the request can produce an event)
// that records the request's latency metrics as its events leave the engine (not skewed by a slow
// client) and queues them for the HTTP handler that waits for them. Requests others submit to the
// same engine (the desktop app's chats, when it lends its engine) go to their own sinks.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "app/server/metrics.h"
#include "engine/frontdoor/engine_client.h"

namespace folio::server {

// The events of one API request: one engine request with n replies, choice i arriving as id first + i.
class RequestStream {
public:
    // The engine ids, choice by choice.
    const std::vector<RequestId>& ids() const { return ids_; }
    // The events that came since the last call, waiting up to `timeout` for one.
    std::vector<Event> wait(std::chrono::milliseconds timeout);

private:
    friend class ApiRequests;
    void push(const Event& e);

    std::vector<RequestId> ids_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Event> events_;
};

// Where the latency metrics go, shared with the sinks of requests still in the engine: detach() ends
// the recording before the metrics' owner goes (a lent engine outlives the server).
class MetricsTap {
public:
    explicit MetricsTap(ServerMetrics* metrics) : metrics_(metrics) {}
    template <class F>
    void record(F&& f) {
        std::lock_guard lock(mutex_);
        if (metrics_) f(*metrics_);
    }
    void detach() {
        std::lock_guard lock(mutex_);
        metrics_ = nullptr;
    }

private:
    std::mutex mutex_;
    ServerMetrics* metrics_;
};

class ApiRequests {
public:
    // `metrics`: null records nothing. `engine` must outlive this object; the sinks of its requests
    // hold what they use, so a lent engine may deliver their last events after it is gone.
    ApiRequests(EngineClient& engine, ServerMetrics* metrics);
    ~ApiRequests();  // stops recording metrics

    // Submits `request` as one engine request with n replies (Request::n: the prompt prefilled once,
    // its KV blocks shared, choice i sampled with the request's seed plus i, or one the engine picks)
    // and returns the stream their events come to.
    std::shared_ptr<RequestStream> submit(Request request, int n = 1);
    // Ends every reply of the stream in the engine (a client that went away): their KV blocks are
    // freed within a step.
    void cancel(const RequestStream& stream);
    // Ends every request submitted here (the server stops serving this engine): each stream gets its
    // Finished(Cancelled) within a step.
    void cancel_all();
    // Replies (of all requests submitted here) whose last event has not come yet.
    size_t in_flight() const;

private:
    EngineClient& engine_;
    std::shared_ptr<MetricsTap> tap_;
    // The requests in flight: first id -> replies not ended yet. Shared with their sinks, which
    // count a request's replies down as they end.
    struct Live {
        mutable std::mutex mutex;
        std::unordered_map<RequestId, int> replies_left;
    };
    std::shared_ptr<Live> live_ = std::make_shared<Live>();
};

}  // namespace folio::server
