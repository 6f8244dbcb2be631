#include "engine/frontdoor/sync_engine.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <utility>

#include "engine/model/model.h"

namespace folio {

SyncEngine::SyncEngine(std::shared_ptr<const Model> model, std::unique_ptr<Backend> backend, const EngineOptions& options)
    : model_(model), input_(*model), core_(model, std::move(backend), options), output_(model->tokenizer, model->name) {}

RequestId SyncEngine::add(Request request) {
    // n replies take n consecutive free ids.
    const int n = num_reply_ids(request);
    auto free_from = [&](RequestId first) {
        for (int i = 0; i < n; ++i)
            if (core_.has(first + RequestId(i)) || output_.has(first + RequestId(i))) return false;
        return true;
    };
    while (!free_from(next_id_)) ++next_id_;
    const RequestId id = next_id_;
    next_id_ += RequestId(n);
    add(id, std::move(request));
    return id;
}

void SyncEngine::add(RequestId id, Request request) {
    const auto arrival = std::chrono::steady_clock::now();
    const int n = num_reply_ids(request);
    // Every reply's id gets the Error, unless the ids are someone else's.
    auto reject = [&](const std::string& message, int count) {
        for (int i = 1; i < count; ++i) {
            Event e;
            e.kind = Event::Kind::Error;
            e.id = id + RequestId(i);
            e.reason = FinishReason::Error;
            e.message = message;
            pending_.push_back(std::move(e));
        }
        Event e;
        e.kind = Event::Kind::Error;
        e.id = id;
        e.reason = FinishReason::Error;
        e.message = message;
        e.timings.input_ms = e.timings.queue_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - arrival).count();
        pending_.push_back(std::move(e));
    };
    if (id == 0 || core_.has(id) || output_.has(id)) return reject("request id " + std::to_string(id) + " is zero or already in use", 1);
    for (int i = 1; i < n; ++i)
        if (core_.has(id + RequestId(i)) || output_.has(id + RequestId(i)))
            return reject("request id " + std::to_string(id + RequestId(i)) + " (reply " + std::to_string(i) + ") is already in use", 1);
    ProcessedRequest p;
    try {
        p = input_.process(request);
    } catch (const std::exception& e) {
        return reject(e.what(), n);
    }
    p.core.arrival = arrival;
    p.output.input_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - arrival).count();
    for (int i = 1; i < p.core.n; ++i) output_.add(id + RequestId(i), p.output);
    output_.add(id, std::move(p.output));
    core_.add(id, std::move(p.core));
}

void SyncEngine::cancel(RequestId id) { core_.cancel(id); }

std::optional<RequestId> SyncEngine::fork(RequestId parent, const SamplingParams& sampling) {
    validate(sampling);
    if (!core_.has(parent) || !output_.has(parent)) return std::nullopt;
    while (core_.has(next_id_) || output_.has(next_id_)) ++next_id_;
    const RequestId child = next_id_++;
    const bool continues_text = core_.num_generated(parent) > 0;
    if (!core_.fork(parent, child, sampling)) return std::nullopt;
    output_.fork(parent, child, continues_text);
    return child;
}

std::vector<Event> SyncEngine::step() {
    std::vector<Event> out = std::exchange(pending_, {});
    std::vector<RequestId> aborts;
    output_.process(core_.step(), out, aborts);
    for (RequestId id : aborts) core_.abort(id);
    return out;
}

}  // namespace folio
