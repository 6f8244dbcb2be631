#pragma once
// The engine as every front end uses it (GUI, CLI, benchmark, a later server): submit requests from
// any thread, read events, take stats snapshots. The loop (scheduler -> batch -> backend -> sampler
// -> events) runs on the engine's own thread; no call here ever waits for a step to finish.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/runtime/engine_options.h"
#include "engine/runtime/engine_stats.h"
#include "engine/runtime/request.h"

namespace folio {

struct Model;
class EngineCore;

class Engine {
public:
    // Takes a loaded model and the backend for it (engine/backends: make_backend(*model,
    // backend_options_for(options)), or one built elsewhere by tests and benchmarks); builds the KV
    // pool (may throw folio::Error with sizes when the pool does not fit). Starts the loop thread.
    Engine(std::shared_ptr<const Model> model, std::unique_ptr<Backend> backend, const EngineOptions& options);
    ~Engine();  // stops the thread; unfinished requests are dropped
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Never blocks on a step. Invalid requests (empty prompt, too long for the context or the pool)
    // are answered with an Error event, not an exception.
    RequestId submit(Request request);
    // Frees everything the request holds within one step; a Finished(Cancelled) event follows.
    // Unknown or finished ids are ignored.
    void cancel(RequestId id);
    // Static batching (EngineOptions::batching): no more requests are coming, so a batch smaller
    // than static_batch_size may start. No effect in continuous mode.
    void set_input_closed(bool closed);

    // Events in order. wait_events blocks up to `timeout` for at least one event.
    std::vector<Event> poll_events();
    std::vector<Event> wait_events(std::chrono::milliseconds timeout);
    // Alternative to polling: called on the engine thread for every event (the Qt bridge posts them
    // on as queued signals). Set it before submitting; events then do not go to the poll queue.
    void set_event_callback(std::function<void(const Event&)> callback);

    // A snapshot taken after the latest step; it already counts every event delivered so far.
    EngineStats stats() const;
    const Model& model() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace folio
