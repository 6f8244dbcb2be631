#include "engine/runtime/engine.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "engine/model/model.h"
#include "engine/runtime/engine_core.h"

namespace folio {

// Threads: callers touch only the inbox, the event queue and the stats snapshot, each behind its own
// mutex held for a push, a swap or a copy; the loop thread alone touches the EngineCore.
struct Engine::Impl {
    std::shared_ptr<const Model> model;
    EngineCore core;

    std::mutex inbox_mutex;
    std::condition_variable wake;
    std::vector<std::pair<RequestId, Request>> submits;
    std::vector<RequestId> cancels;
    std::optional<bool> input_closed;  // a change asked for, not applied yet
    bool stop = false;
    std::atomic<RequestId> next_id{1};

    std::mutex events_mutex;
    std::condition_variable events_ready;
    std::deque<Event> events;
    std::shared_ptr<const std::function<void(const Event&)>> callback;  // read under events_mutex

    mutable std::mutex stats_mutex;
    EngineStats stats;

    std::thread thread;

    Impl(std::shared_ptr<const Model> m, std::unique_ptr<Backend> backend, const EngineOptions& options)
        : model(m), core(std::move(m), std::move(backend), options) {
        stats = core.stats();
    }

    void publish(std::vector<Event>&& batch) {
        if (batch.empty()) return;
        std::shared_ptr<const std::function<void(const Event&)>> cb;
        {
            std::lock_guard lock(events_mutex);
            cb = callback;
            if (!cb) {
                for (auto& e : batch) events.push_back(std::move(e));
            }
        }
        if (cb) {
            for (const auto& e : batch) (*cb)(e);
        } else {
            events_ready.notify_all();
        }
    }

    void loop() {
        std::vector<std::pair<RequestId, Request>> new_requests;
        std::vector<RequestId> new_cancels;
        for (;;) {
            {
                std::unique_lock lock(inbox_mutex);
                const bool busy = (core.has_unfinished() && !core.stalled()) || core.has_pending_events();
                if (!busy) wake.wait(lock, [&] { return stop || !submits.empty() || !cancels.empty() || input_closed; });
                if (stop) return;
                new_requests.swap(submits);
                new_cancels.swap(cancels);
                if (input_closed) core.set_input_closed(*std::exchange(input_closed, std::nullopt));
            }
            for (auto& [id, request] : new_requests) core.add(id, std::move(request));
            for (RequestId id : new_cancels) core.cancel(id);
            new_requests.clear();
            new_cancels.clear();
            std::vector<Event> out;
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
            publish(std::move(out));
        }
    }
};

Engine::Engine(std::shared_ptr<const Model> model, std::unique_ptr<Backend> backend, const EngineOptions& options)
    : impl_(std::make_unique<Impl>(std::move(model), std::move(backend), options)) {
    impl_->thread = std::thread([this] { impl_->loop(); });
}

Engine::~Engine() {
    {
        std::lock_guard lock(impl_->inbox_mutex);
        impl_->stop = true;
    }
    impl_->wake.notify_all();
    if (impl_->thread.joinable()) impl_->thread.join();
}

RequestId Engine::submit(Request request) {
    const RequestId id = impl_->next_id.fetch_add(1);
    {
        std::lock_guard lock(impl_->inbox_mutex);
        impl_->submits.emplace_back(id, std::move(request));
    }
    impl_->wake.notify_one();
    return id;
}

void Engine::set_input_closed(bool closed) {
    {
        std::lock_guard lock(impl_->inbox_mutex);
        impl_->input_closed = closed;
    }
    impl_->wake.notify_one();
}

void Engine::cancel(RequestId id) {
    {
        std::lock_guard lock(impl_->inbox_mutex);
        impl_->cancels.push_back(id);
    }
    impl_->wake.notify_one();
}

std::vector<Event> Engine::poll_events() {
    std::lock_guard lock(impl_->events_mutex);
    std::vector<Event> out(std::make_move_iterator(impl_->events.begin()), std::make_move_iterator(impl_->events.end()));
    impl_->events.clear();
    return out;
}

std::vector<Event> Engine::wait_events(std::chrono::milliseconds timeout) {
    std::unique_lock lock(impl_->events_mutex);
    impl_->events_ready.wait_for(lock, timeout, [&] { return !impl_->events.empty(); });
    std::vector<Event> out(std::make_move_iterator(impl_->events.begin()), std::make_move_iterator(impl_->events.end()));
    impl_->events.clear();
    return out;
}

void Engine::set_event_callback(std::function<void(const Event&)> callback) {
    auto cb = callback ? std::make_shared<const std::function<void(const Event&)>>(std::move(callback)) : nullptr;
    std::lock_guard lock(impl_->events_mutex);
    impl_->callback = std::move(cb);
}

EngineStats Engine::stats() const {
    std::lock_guard lock(impl_->stats_mutex);
    return impl_->stats;
}

const Model& Engine::model() const { return *impl_->model; }

}  // namespace folio
