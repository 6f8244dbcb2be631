#pragma once
// The engine loop's body, single-threaded, on token ids only: requests in, one step at a time,
// events out.
//   step(): scheduler plan -> apply (KV) -> ForwardBatch -> backend (device sampling, or forward and
//           the host sampler: sample_step) -> tokens -> end checks (end ids, max_tokens, context)
//           -> events and stats.
// Text never comes here: the front door (engine/frontdoor) renders templates and tokenizes before
// add(), and detokenizes and matches stop strings on the events after step(); a stop string ends a
// request there, which then abort()s it here. The threaded Engine and SyncEngine (frontdoor) drive it.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/runtime/core_request.h"
#include "engine/runtime/engine_options.h"
#include "engine/runtime/engine_stats.h"
#include "engine/runtime/throughput_window.h"
#include "engine/sampling/sampler.h"
#include "engine/sched/scheduler.h"

namespace folio {

struct Model;

class EngineCore {
public:
    // Sizes the KV pool on `backend` (options.num_kv_blocks when set, else the backend's plan for
    // options.kv_cache_bytes, at least one full-context sequence, at most max_num_seqs of them when
    // the budget is the default) and allocates it. Throws folio::Error when the pool does not fit or
    // the options are inconsistent. The model's tokenizer is never used (it may have none).
    EngineCore(std::shared_ptr<const Model> model, std::unique_ptr<Backend> backend, const EngineOptions& options);
    ~EngineCore();
    EngineCore(const EngineCore&) = delete;
    EngineCore& operator=(const EngineCore&) = delete;

    // Queues a request. Never throws for a bad request: it is answered by a finished Error event in
    // the next step()'s events (empty prompt, an id outside the vocabulary, too long for the context
    // or the pool, bad sampling settings or max_tokens, an id in use).
    RequestId add(CoreRequest request);
    // Same with an id chosen by the caller (the front door hands ids out itself). Ids must be
    // unique and non-zero.
    void add(RequestId id, CoreRequest request);
    // Frees everything the request holds now; a finished Cancelled event comes with the next step().
    // The first id of a request with n replies cancels every reply. Unknown or finished ids are ignored.
    void cancel(RequestId id);
    // Frees everything the request holds now, with no event: its caller has already been told it
    // ended (the front door matched a stop string). Unknown or finished ids are ignored.
    void abort(RequestId id);
    // A new request continuing `parent` from where it stands: same prompt and tokens so far, KV
    // blocks shared (copied on write), its own sampling (and seed). Its events carry only tokens
    // generated after the fork; it stops where the parent would (end ids, and max_tokens counting the
    // inherited tokens). Returns nullopt (false) when the parent is not active or `child` is zero or
    // taken; throws folio::Error on invalid sampling settings.
    std::optional<RequestId> fork(RequestId parent, const SamplingParams& sampling);
    bool fork(RequestId parent, RequestId child, const SamplingParams& sampling);
    // Static batching: no more requests are coming, so a smaller last batch may start.
    void set_input_closed(bool closed);

    // One iteration. Returns the events since the last step (including rejections and
    // cancellations made in between), in order. Does nothing but return them when idle.
    std::vector<CoreEvent> step();
    // Requests queued or running.
    bool has_unfinished() const;
    // Whether `id` is queued or running.
    bool has(RequestId id) const { return active_.count(id) > 0; }
    // Tokens the request has generated so far (a fork's inherited ones included); 0 when unknown.
    int num_generated(RequestId id) const;
    // The last step() found nothing it could run although requests are queued (static batching
    // waiting for a full batch): stepping again is pointless until a request comes or input closes.
    bool stalled() const { return stalled_; }
    // Any events waiting for the next step() to return them.
    bool has_pending_events() const { return !pending_.empty(); }
    // Ends every request with an Error event carrying `message` (the engine hit a bug it cannot
    // recover a step from); the engine stays usable.
    void fail_all(const std::string& message);

    EngineStats stats() const;
    // Cheap parts of stats() for per-step bookkeeping (benchmarks).
    int64_t steps() const { return steps_; }
    int last_batch_seqs() const { return last_batch_seqs_; }
    const Model& model() const { return *model_; }
    const Backend& backend() const { return *backend_; }
    const Scheduler& scheduler() const { return sched_; }
    int64_t num_kv_blocks() const { return sched_.kv().num_blocks(); }

private:
    using Clock = std::chrono::steady_clock;
    struct Active;

    void reject(RequestId id, const std::string& message, std::vector<int32_t> prompt_ids = {});
    // Ends a request: removes it from the scheduler and queues its finished event (`e` carries the
    // last token, if any).
    void finish(RequestId id, FinishReason reason, const std::string& message = {}, int32_t token = -1);
    void on_token(RequestId id, int32_t token, std::optional<TokenLogprobs> logprobs, Clock::time_point now);
    // The n replies of one prompt (CoreRequest::n): the others become sequences of their own, sharing
    // the prompt's blocks, each with the first token it drew (after `parent` sampled its own).
    void fork_replies(RequestId parent, const std::vector<std::pair<RequestId, int32_t>>& replies);
    RequestTimings timings_of(const Active& a, Clock::time_point now) const;

    std::shared_ptr<const Model> model_;
    std::unique_ptr<Backend> backend_;
    Sampler sampler_;             // host sampling, for steps the backend does not sample itself
    std::vector<float> logits_;   // the host sampling's logits, kept between steps
    std::vector<float> logits_copies_;  // rows sampled from a shared logits row (n replies)
    Scheduler sched_;
    std::unordered_map<RequestId, std::unique_ptr<Active>> active_;
    std::vector<CoreEvent> pending_;
    // Requests with n > 1 replies: first id -> every reply's id (the first included), while any runs.
    std::unordered_map<RequestId, std::vector<RequestId>> groups_;
    RequestId next_id_ = 1;
    bool stalled_ = false;
    std::mt19937_64 seed_rng_;

    // Stats
    ThroughputWindow window_;
    int64_t steps_ = 0;
    int64_t batched_seqs_total_ = 0, kv_slots_allocated_total_ = 0, kv_slots_filled_total_ = 0;
    int64_t total_prompt_tokens_ = 0;
    int64_t total_generated_tokens_ = 0;
    int last_batch_seqs_ = 0;
    int last_batch_tokens_ = 0;
    double last_step_ms_ = 0;
    int64_t peak_blocks_used_ = 0;
    std::string device_name_;
    std::string kv_cache_dtype_;
    uint64_t kv_bytes_per_block_ = 0;
    mutable MemoryInfo memory_;
    mutable Clock::time_point memory_at_{};
};

}  // namespace folio
