#include "engine/frontdoor/engine.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "engine/frontdoor/input_processor.h"
#include "engine/frontdoor/output_processor.h"
#include "engine/model/model.h"
#include "engine/runtime/engine_core.h"

namespace folio {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Submitted {
    RequestId id = 0;
    Request request;
    Clock::time_point arrival;
};

struct Fork {
    RequestId parent = 0, child = 0;
    SamplingParams sampling;
};

// What the output thread is told, in the order it must act on it.
struct OutputItem {
    enum class Kind { Register, Fork, Ready, Core } kind = Kind::Ready;
    RequestId id = 0;                  // Register, Fork: the request
    OutputRequest request;             // Register
    RequestId parent = 0;              // Fork: forked from (in the core, just now)
    bool continues_text = false;       // Fork: the parent had generated tokens
    Event event;                       // Ready: an event made outside the core's steps (rejection, early cancel)
    std::vector<CoreEvent> core_events;  // Core: one step's
};

// The last event of a request that ends outside the core's steps (a rejection, a cancel at the front
// door, a fork that cannot be made).
Event ending_event(RequestId id, FinishReason reason, std::string message, Clock::time_point arrival) {
    Event e;
    e.kind = reason == FinishReason::Error ? Event::Kind::Error : Event::Kind::Finished;
    e.id = id;
    e.reason = reason;
    e.message = std::move(message);
    e.timings.input_ms = e.timings.queue_ms = ms_since(arrival);
    return e;
}

// The front door yields to the step loop when cores are scarce: a CPU backend's thread pool uses
// every core, and one of its workers losing its core to a template render holds the whole step up
// (folio-bench --suite frontdoor measures it). A nicer thread still gets any idle core.
void lower_this_threads_priority() {
#ifdef __linux__
    const auto tid = id_t(::syscall(SYS_gettid));
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, tid);
    if (errno == 0) ::setpriority(PRIO_PROCESS, tid, std::min(nice + 10, 19));
#endif
}

EngineModelInfo model_info_of(const Model& m, const EngineStats& st) {
    EngineModelInfo info;
    info.spec = m.spec;
    info.name = m.name;
    info.architecture = m.config.architecture;
    info.quantization = m.quantization_name();
    info.backend = st.backend;
    info.device = st.device_name;
    info.context_length = m.context_length();
    info.layers = m.config.num_layers;
    info.hidden_size = m.config.hidden_size;
    // A template that reads enable_thinking can switch its reasoning off (chat_template_kwargs).
    const std::optional<std::string>& tpl = m.tokenizer_config.chat_template;
    info.template_thinks = tpl && tpl->find("enable_thinking") != std::string::npos;
    return info;
}

}  // namespace

// Threads: the front-door thread alone uses the InputProcessor (the step thread, with
// input_on_step_thread), the step thread alone the EngineCore, the output thread alone the
// OutputProcessor. They talk through three queues under one mutex, each held for a push or a swap.
// Callers touch only those queues, the sinks table and the stats snapshot.
struct Engine::Impl {
    std::shared_ptr<const Model> model;
    const bool input_on_step_thread;
    InputProcessor input;
    EngineCore core;
    OutputProcessor output;
    std::atomic<RequestId> next_id{1};

    std::mutex mutex;
    bool stop = false;
    // The front door: requests waiting for or in input processing.
    std::condition_variable front_wake;
    std::deque<Submitted> front_queue;
    struct InFront {
        Clock::time_point arrival;
        int n = 1;  // replies: ids id .. id + n - 1
    };
    std::unordered_map<RequestId, InFront> in_front;  // queued or being processed
    std::unordered_set<RequestId> cancelled;  // of those, cancelled (their event has gone out)
    // Forks of requests still at the front door (the children are in in_front too): they reach the
    // core together with their parent, before any step could end it.
    std::unordered_map<RequestId, std::vector<Fork>> waiting_forks;
    // The step loop's inbox.
    std::condition_variable core_wake;
    std::vector<std::pair<RequestId, CoreRequest>> submits;
    std::vector<Fork> forks;           // after the submits they follow
    std::deque<Submitted> to_process;  // input_on_step_thread: requests for the step thread to process
    std::vector<RequestId> cancels, aborts;
    std::optional<bool> input_closed;  // a change asked for, not applied yet
    // The output thread's inbox.
    std::condition_variable output_wake;
    std::deque<OutputItem> output_queue;

    // Where each request's events go: one entry per reply id, put in by submit or fork before the
    // request is queued (so before any event of it), taken out by the output thread at its last
    // event. Several ids of one request share the sink.
    std::mutex sinks_mutex;
    std::unordered_map<RequestId, std::shared_ptr<const EventSink>> sinks;

    mutable std::mutex stats_mutex;
    EngineStats stats;

    EngineModelInfo info;

    std::thread front_thread, step_thread, output_thread;

    Impl(std::shared_ptr<const Model> m, std::unique_ptr<Backend> backend, const EngineOptions& options)
        : model(m),
          input_on_step_thread(options.input_on_step_thread),
          input(*m),
          core(m, std::move(backend), options),
          output(m->tokenizer, m->name) {
        stats = core.stats();
        info = model_info_of(*m, stats);
    }

    void add_sink(RequestId first, int n, EventSink sink) {
        auto shared = std::make_shared<const EventSink>(std::move(sink));
        std::lock_guard lock(sinks_mutex);
        for (int i = 0; i < n; ++i) sinks[first + RequestId(i)] = shared;
    }

    // Under `mutex`.
    void push_output(OutputItem item) {
        output_queue.push_back(std::move(item));
        output_wake.notify_one();
    }

    // Under `mutex`: a request taken off a queue that was cancelled meanwhile is dropped (its event
    // has gone out), and so are its forks.
    bool drop_if_cancelled(RequestId id) {
        if (!cancelled.erase(id)) return false;
        in_front.erase(id);
        release_forks(id, false);
        return true;
    }

    // Under `mutex`: the forks waiting for `parent` follow it into the core's inbox, or, when it
    // never gets there, end with an Error event.
    void release_forks(RequestId parent, bool parent_admitted) {
        const auto it = waiting_forks.find(parent);
        if (it == waiting_forks.end()) return;
        std::vector<Fork> waiting = std::move(it->second);
        waiting_forks.erase(it);
        for (Fork& f : waiting) {
            if (drop_if_cancelled(f.child)) continue;
            const Clock::time_point arrival = in_front[f.child].arrival;
            in_front.erase(f.child);
            const RequestId child = f.child;
            if (parent_admitted) {
                forks.push_back(std::move(f));
            } else {
                OutputItem item;
                item.event = ending_event(child, FinishReason::Error,
                                          "cannot fork request " + std::to_string(parent) +
                                              ": it ended before it reached the engine",
                                          arrival);
                push_output(std::move(item));
            }
            release_forks(child, parent_admitted);  // forks of the fork follow it
        }
        if (parent_admitted) core_wake.notify_one();
    }

    // Input processing, then the hand-off: registered with the output thread first, then queued for
    // the step loop, so the output thread knows the request before any of its core events.
    void admit(Submitted s) {
        std::optional<ProcessedRequest> p;
        std::string error;
        try {
            p = input.process(s.request);
        } catch (const std::exception& e) {
            error = e.what();
        }
        std::lock_guard lock(mutex);
        if (drop_if_cancelled(s.id)) return;
        in_front.erase(s.id);
        const int n = num_reply_ids(s.request);
        if (!p) {
            for (int i = 0; i < n; ++i) {
                OutputItem item;
                item.event = ending_event(s.id + RequestId(i), FinishReason::Error, error, s.arrival);
                push_output(std::move(item));
            }
            release_forks(s.id, false);
            return;
        }
        p->core.arrival = s.arrival;
        p->output.input_ms = ms_since(s.arrival);
        for (int i = 1; i < n; ++i) {
            OutputItem reply;
            reply.kind = OutputItem::Kind::Register;
            reply.id = s.id + RequestId(i);
            reply.request = p->output;
            push_output(std::move(reply));
        }
        OutputItem item;
        item.kind = OutputItem::Kind::Register;
        item.id = s.id;
        item.request = std::move(p->output);
        push_output(std::move(item));
        submits.emplace_back(s.id, std::move(p->core));
        core_wake.notify_one();
        release_forks(s.id, true);
    }

    void front_loop() {
        lower_this_threads_priority();
        for (;;) {
            Submitted s;
            {
                std::unique_lock lock(mutex);
                front_wake.wait(lock, [&] { return stop || !front_queue.empty(); });
                if (stop) return;
                s = std::move(front_queue.front());
                front_queue.pop_front();
                if (drop_if_cancelled(s.id)) continue;
            }
            admit(std::move(s));
        }
    }

    void step_loop() {
        std::vector<std::pair<RequestId, CoreRequest>> new_requests;
        std::vector<Fork> new_forks;
        std::deque<Submitted> new_inputs;
        std::vector<RequestId> new_cancels, new_aborts;
        for (;;) {
            {
                std::unique_lock lock(mutex);
                const bool busy = (core.has_unfinished() && !core.stalled()) || core.has_pending_events();
                if (!busy)
                    core_wake.wait(lock, [&] {
                        return stop || !submits.empty() || !forks.empty() || !to_process.empty() || !cancels.empty() ||
                               !aborts.empty() || input_closed;
                    });
                if (stop) return;
                new_requests.swap(submits);
                new_forks.swap(forks);
                new_inputs.swap(to_process);
                new_cancels.swap(cancels);
                new_aborts.swap(aborts);
                if (input_closed) core.set_input_closed(*std::exchange(input_closed, std::nullopt));
            }
            // input_on_step_thread: the front door's work holds up this step, as it would inside the
            // loop; the requests reach the core on the next iteration.
            for (Submitted& s : new_inputs) {
                {
                    std::lock_guard lock(mutex);
                    if (drop_if_cancelled(s.id)) continue;
                }
                admit(std::move(s));
            }
            for (auto& [id, request] : new_requests) core.add(id, std::move(request));
            for (const Fork& f : new_forks) fork_in_core(f);
            for (RequestId id : new_cancels) core.cancel(id);
            for (RequestId id : new_aborts) core.abort(id);
            new_requests.clear();
            new_forks.clear();
            new_inputs.clear();
            new_cancels.clear();
            new_aborts.clear();
            std::vector<CoreEvent> out;
            try {
                out = core.step();
            } catch (const std::exception& e) {
                // A bug inside the step: end what is in flight with the reason, keep serving.
                core.fail_all(std::string("internal engine error: ") + e.what());
                out = core.step();
            }
            // Stats first: whoever has seen an event then sees stats at least as new as its step.
            EngineStats snapshot = core.stats();
            {
                std::lock_guard lock(stats_mutex);
                stats = std::move(snapshot);
            }
            if (out.empty()) continue;
            OutputItem item;
            item.kind = OutputItem::Kind::Core;
            item.core_events = std::move(out);
            std::lock_guard lock(mutex);
            push_output(std::move(item));
        }
    }

    // On the step thread, before the step whose events the child may have: the output thread learns
    // of the child ahead of them, or the caller gets an Error event for it.
    void fork_in_core(const Fork& f) {
        OutputItem item;
        item.id = f.child;
        try {
            item.continues_text = core.num_generated(f.parent) > 0;
            if (core.fork(f.parent, f.child, f.sampling)) {
                item.kind = OutputItem::Kind::Fork;
                item.parent = f.parent;
            } else {
                item.event = ending_event(f.child, FinishReason::Error,
                                          "cannot fork request " + std::to_string(f.parent) +
                                              ": it is not running (it has ended, or never started)",
                                          Clock::now());
            }
        } catch (const std::exception& e) {
            item.event = ending_event(f.child, FinishReason::Error, e.what(), Clock::now());
        }
        std::lock_guard lock(mutex);
        push_output(std::move(item));
    }

    void output_loop() {
        std::deque<OutputItem> items;
        for (;;) {
            {
                std::unique_lock lock(mutex);
                output_wake.wait(lock, [&] { return stop || !output_queue.empty(); });
                if (stop) return;
                items.swap(output_queue);
            }
            std::vector<Event> batch;
            std::vector<RequestId> stopped;
            for (OutputItem& item : items) {
                switch (item.kind) {
                    case OutputItem::Kind::Register: output.add(item.id, std::move(item.request)); break;
                    case OutputItem::Kind::Fork:
                        // The parent may have just ended here (a stop string) while the core forked it.
                        if (!output.fork(item.parent, item.id, item.continues_text)) {
                            batch.push_back(ending_event(item.id, FinishReason::Error,
                                                         "cannot fork request " + std::to_string(item.parent) + ": it has ended",
                                                         Clock::now()));
                            stopped.push_back(item.id);
                        }
                        break;
                    case OutputItem::Kind::Ready: batch.push_back(std::move(item.event)); break;
                    case OutputItem::Kind::Core: output.process(std::move(item.core_events), batch, stopped); break;
                }
            }
            items.clear();
            if (!stopped.empty()) {
                std::lock_guard lock(mutex);
                aborts.insert(aborts.end(), stopped.begin(), stopped.end());
                core_wake.notify_one();
            }
            publish(std::move(batch));
        }
    }

    // On the output thread: each event to its request's sink, outside the lock (a sink may take
    // locks of its own); a reply's last event retires its route.
    void publish(std::vector<Event>&& batch) {
        if (batch.empty()) return;
        std::vector<std::shared_ptr<const EventSink>> to(batch.size());
        {
            std::lock_guard lock(sinks_mutex);
            for (size_t i = 0; i < batch.size(); ++i) {
                const auto it = sinks.find(batch[i].id);
                if (it == sinks.end()) continue;
                to[i] = it->second;
                if (batch[i].kind != Event::Kind::Token) sinks.erase(it);
            }
        }
        for (size_t i = 0; i < batch.size(); ++i)
            if (to[i] && *to[i]) (*to[i])(batch[i]);
    }
};

Engine::Engine(std::shared_ptr<const Model> model, std::unique_ptr<Backend> backend, const EngineOptions& options)
    : impl_(std::make_unique<Impl>(std::move(model), std::move(backend), options)) {
    impl_->output_thread = std::thread([this] { impl_->output_loop(); });
    impl_->step_thread = std::thread([this] { impl_->step_loop(); });
    if (!impl_->input_on_step_thread) impl_->front_thread = std::thread([this] { impl_->front_loop(); });
}

Engine::~Engine() {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->stop = true;
    }
    impl_->front_wake.notify_all();
    impl_->core_wake.notify_all();
    impl_->output_wake.notify_all();
    for (std::thread* t : {&impl_->front_thread, &impl_->step_thread, &impl_->output_thread})
        if (t->joinable()) t->join();
}

RequestId Engine::submit(Request request, EventSink sink) {
    const int n = num_reply_ids(request);
    const RequestId id = impl_->next_id.fetch_add(RequestId(n));
    impl_->add_sink(id, n, std::move(sink));  // before the request is queued: before any event of it
    Submitted s{id, std::move(request), Clock::now()};
    {
        std::lock_guard lock(impl_->mutex);
        impl_->in_front.emplace(id, Impl::InFront{s.arrival, n});
        if (impl_->input_on_step_thread) {
            impl_->to_process.push_back(std::move(s));
            impl_->core_wake.notify_one();
        } else {
            impl_->front_queue.push_back(std::move(s));
            impl_->front_wake.notify_one();
        }
    }
    return id;
}

RequestId Engine::fork(RequestId parent, const SamplingParams& sampling, EventSink sink) {
    const RequestId id = impl_->next_id.fetch_add(1);
    impl_->add_sink(id, 1, std::move(sink));
    std::lock_guard lock(impl_->mutex);
    if (impl_->in_front.count(parent) && !impl_->cancelled.count(parent)) {
        // The parent has not reached the core yet: the fork goes with it.
        impl_->in_front.emplace(id, Impl::InFront{Clock::now(), 1});
        impl_->waiting_forks[parent].push_back({parent, id, sampling});
    } else {
        impl_->forks.push_back({parent, id, sampling});
        impl_->core_wake.notify_one();
    }
    return id;
}

void Engine::set_input_closed(bool closed) {
    std::lock_guard lock(impl_->mutex);
    impl_->input_closed = closed;
    impl_->core_wake.notify_one();
}

void Engine::cancel(RequestId id) {
    std::lock_guard lock(impl_->mutex);
    const auto it = impl_->in_front.find(id);
    if (it == impl_->in_front.end()) {
        impl_->cancels.push_back(id);
        impl_->core_wake.notify_one();
        return;
    }
    // Not past the front door yet: it ends now, and the front door drops it when it comes to it.
    if (!impl_->cancelled.insert(id).second) return;
    for (int i = 0; i < it->second.n; ++i) {
        OutputItem item;
        item.event = ending_event(id + RequestId(i), FinishReason::Cancelled, {}, it->second.arrival);
        impl_->push_output(std::move(item));
    }
}

EngineStats Engine::stats() const {
    std::lock_guard lock(impl_->stats_mutex);
    return impl_->stats;
}

const Model& Engine::model() const { return *impl_->model; }

const EngineModelInfo& Engine::model_info() const { return impl_->info; }

std::string Engine::describe() const { return impl_->info.backend; }

}  // namespace folio
