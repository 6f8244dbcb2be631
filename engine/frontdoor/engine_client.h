#pragma once
// The one contract every front end drives an engine through: the desktop app, folio-cli, folio-server
// and folio-bench submit Requests and receive each request's Events here, whether the engine runs in
// this process (Engine, engine/frontdoor/engine.h) or on a server (RemoteEngine, engine/remote). One
// factory builds either (make_engine, engine/client/make_engine.h); nothing else constructs an engine.
//
// Events are routed per request: each submit names the sink its request's events go to, so several
// front ends can share one engine (the app lends its engine to the local API server: chats and API
// requests run in one batch) without a shared callback that has to sort out whose event is whose.
// A sink is registered before the request can produce an event, so none is ever lost or misrouted.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/frontdoor/request.h"
#include "engine/runtime/engine_stats.h"
#include "engine/sampling/sampling_params.h"

namespace folio {

// What a front end shows about the model behind a client (plain data, fixed once the client exists).
struct EngineModelInfo {
    std::string spec;          // what was opened: a folder, "dummy:NAME", or "remote:<base url>"
    std::string name;          // for display: the folder's name, or the served model's id
    std::string architecture;  // config.json's architecture, or "remote"
    std::string quantization;  // Model::quantization_name(), or "as served"
    std::string backend;       // "cpu", "cuda" or "remote"
    std::string device;        // the CPU or GPU, or the server's base URL (never a key)
    int context_length = 0;    // tokens; 0 when a server does not say
    int layers = 0;
    int hidden_size = 0;
    bool template_thinks = false;  // the chat template reads enable_thinking (a reasoning switch)
    bool remote = false;
};

// Receives one request's events (all n replies of it), in order, on a thread of the engine's: never
// the submitting thread, never two calls at once for one request. Each reply's last event is a
// Finished or an Error. A sink must be cheap (copy or queue the event and return): it runs on the
// thread that turns every request's tokens into text.
using EventSink = std::function<void(const Event&)>;

class EngineClient {
public:
    virtual ~EngineClient() = default;  // ends what runs; no sink is called after it returns

    // Queues the request and returns its first id at once (replies id .. id + n - 1, Request::n).
    // Never throws for a bad request: it is answered with an Error event through `sink`.
    virtual RequestId submit(Request request, EventSink sink) = 0;
    // Ends the request (every reply of it): a Finished(Cancelled) event follows through its sink.
    // Unknown or finished ids are ignored.
    virtual void cancel(RequestId id) = 0;
    // A new request continuing `parent` from where it stands (engine.h, Engine::fork). A client that
    // cannot fork (a remote server) answers with an Error event through `sink`.
    virtual RequestId fork(RequestId parent, const SamplingParams& sampling, EventSink sink) = 0;

    virtual const EngineModelInfo& model_info() const = 0;
    // A snapshot of the engine (remote: only what this client has seen: its requests and tokens).
    virtual EngineStats stats() const = 0;
    // "cpu", "cuda", or "remote MODEL at URL" (never the key): for logs and messages.
    virtual std::string describe() const = 0;
};

// A request's events queued for a thread that waits for them (the CLI, an HTTP handler, a test),
// for front ends that pull rather than take callbacks.
class EventQueue {
public:
    // The sink to submit with; it keeps the queue alive.
    static EventSink sink_of(const std::shared_ptr<EventQueue>& queue) {
        return [queue](const Event& e) { queue->push(e); };
    }
    void push(const Event& e) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            events_.push_back(e);
        }
        cv_.notify_all();
    }
    // The events that came since the last call, waiting up to `timeout` for at least one.
    std::vector<Event> wait(std::chrono::milliseconds timeout) {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait_for(lock, timeout, [&] { return !events_.empty(); });
        std::vector<Event> out(std::make_move_iterator(events_.begin()), std::make_move_iterator(events_.end()));
        events_.clear();
        return out;
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Event> events_;
};

}  // namespace folio
