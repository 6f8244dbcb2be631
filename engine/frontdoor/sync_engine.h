#pragma once
// The whole engine on the caller's thread, one step() at a time: the input processor in add(), the
// core in step(), the output processor on step()'s events. For tests and benchmarks that want every
// step under their control; front ends use the threaded Engine (engine.h), which runs the same three
// parts on threads of their own.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/frontdoor/input_processor.h"
#include "engine/frontdoor/output_processor.h"
#include "engine/frontdoor/request.h"
#include "engine/runtime/engine_core.h"
#include "engine/runtime/engine_options.h"
#include "engine/runtime/engine_stats.h"

namespace folio {

struct Model;

class SyncEngine {
public:
    // As EngineCore's constructor; also throws folio::Error when the model has no tokenizer.
    SyncEngine(std::shared_ptr<const Model> model, std::unique_ptr<Backend> backend, const EngineOptions& options);

    // Renders and tokenizes the request now, then queues it in the core. Never throws for a bad
    // request: it is answered by an Error event in the next step()'s events.
    RequestId add(Request request);
    // Same with an id chosen by the caller; ids must be unique and non-zero.
    void add(RequestId id, Request request);
    // Frees everything the request holds now; a Finished(Cancelled) event comes with the next step().
    // Unknown or finished ids are ignored.
    void cancel(RequestId id);
    // EngineCore::fork, with the child's text from the fork on (same stop strings). Nullopt when the
    // parent is not active; throws folio::Error on invalid sampling settings.
    std::optional<RequestId> fork(RequestId parent, const SamplingParams& sampling);
    void set_input_closed(bool closed) { core_.set_input_closed(closed); }

    // One core step; returns the events since the last step (rejections and cancellations made in
    // between, then the step's), in order. A request a stop string ended is aborted in the core
    // before this returns.
    std::vector<Event> step();
    bool has_unfinished() const { return core_.has_unfinished(); }
    bool stalled() const { return core_.stalled(); }
    bool has_pending_events() const { return !pending_.empty() || core_.has_pending_events(); }
    void fail_all(const std::string& message) { core_.fail_all(message); }

    EngineStats stats() const { return core_.stats(); }
    int64_t steps() const { return core_.steps(); }
    int last_batch_seqs() const { return core_.last_batch_seqs(); }
    const Model& model() const { return *model_; }
    const Backend& backend() const { return core_.backend(); }
    const Scheduler& scheduler() const { return core_.scheduler(); }
    int64_t num_kv_blocks() const { return core_.num_kv_blocks(); }
    const EngineCore& core() const { return core_; }
    const InputProcessor& input() const { return input_; }

private:
    std::shared_ptr<const Model> model_;
    InputProcessor input_;
    EngineCore core_;
    OutputProcessor output_;
    std::vector<Event> pending_;  // the front door's own events (rejections) for the next step()
    RequestId next_id_ = 1;
};

}  // namespace folio
