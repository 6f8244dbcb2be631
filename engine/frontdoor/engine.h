#pragma once
// The in-process engine behind EngineClient (engine_client.h; front ends get one from make_engine,
// engine/client): submit requests from any thread, each with the sink its events go to, take stats
// snapshots. No call here ever waits for a step, for a chat
// template or for the tokenizer. Three threads, each owning one part (vLLM's input processor, engine
// core and output processor):
//   front door: template + tokens for each submitted request, in submission order (InputProcessor)
//   step loop:  scheduler -> batch -> backend -> sampler -> CoreEvents, token ids only (EngineCore)
//   output:     text + stop strings of each request, then the events (OutputProcessor)
// so a long history being rendered or a slow detokenize never stalls a running stream. A request's
// events come in order: its registration with the output thread is queued before it reaches the
// step loop, and a rejection goes down the same queue. A request's sink is in the output thread's
// routing table before submit (or fork) queues it, so no event of it can come before its sink.
#include <memory>
#include <string>

#include "engine/backend/backend.h"
#include "engine/frontdoor/engine_client.h"
#include "engine/frontdoor/request.h"
#include "engine/runtime/engine_options.h"
#include "engine/runtime/engine_stats.h"
#include "engine/sampling/sampling_params.h"

namespace folio {

struct Model;

class Engine final : public EngineClient {
public:
    // Takes a loaded model and the backend for it (engine/backends: make_backend(*model,
    // backend_options_for(options)), or one built elsewhere by tests and benchmarks); builds the KV
    // pool (may throw folio::Error with sizes when the pool does not fit, or when the model has no
    // tokenizer). Starts the threads.
    Engine(std::shared_ptr<const Model> model, std::unique_ptr<Backend> backend, const EngineOptions& options);
    ~Engine() override;  // stops the threads; unfinished requests are dropped, no sink is called after it
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Hands out the request's id and queues it for the front door; returns at once. Invalid requests
    // (no prompt, a bad template or setting, too long for the context or the pool) are answered with
    // an Error event, not an exception. Time to first token counts from here. A request with n > 1
    // replies gets ids id .. id + n - 1 (Request::n), admitted and prefilled once; cancel(id) ends all.
    // Every event of every reply goes to `sink`, on the output thread.
    RequestId submit(Request request, EventSink sink) override;
    // Ends the request: one not yet past the front door at once, one in the core within one step,
    // freeing everything it holds; a Finished(Cancelled) event follows. Unknown or finished ids are
    // ignored.
    void cancel(RequestId id) override;
    // A new request continuing `parent` from where it stands when the fork reaches the core (with the
    // parent, before its first step, if the parent is still at the front door): same prompt and
    // tokens so far, KV blocks shared, its own sampling (seed); same stop conditions, max_tokens
    // counting the inherited tokens.
    // Its events carry only what it generates after the fork. For n replies to one prompt use
    // Request::n instead: a fork made right after submit may reach the core after the parent's first
    // tokens, and would then share them. The id is handed out at once; a parent that has ended
    // (or never reached the core), or an invalid setting, gets the child an Error event. The child's
    // events go to `sink`.
    RequestId fork(RequestId parent, const SamplingParams& sampling, EventSink sink) override;
    // Static batching (EngineOptions::batching): no more requests are coming, so a batch smaller
    // than static_batch_size may start. No effect in continuous mode.
    void set_input_closed(bool closed);

    // The model's description, fixed at construction (backend and device from the backend).
    const EngineModelInfo& model_info() const override;
    // A snapshot taken after the latest step; it already counts every event delivered so far.
    EngineStats stats() const override;
    std::string describe() const override;  // the backend: "cpu" or "cuda"
    const Model& model() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace folio
