#pragma once
// An engine client whose requests all send their events to one queue, for tests that read several
// requests' events together (in each request's order, interleaved as they came). The client routes
// every request to the sink it was submitted with; here each request's sink is the queue's. Tests of
// the routing itself submit with sinks of their own (client_routing_test).
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "engine/frontdoor/engine_client.h"

namespace folio::test {

template <class Client>
class QueuedClient {
public:
    explicit QueuedClient(std::unique_ptr<Client> client) : client_(std::move(client)) {}

    Client& client() { return *client_; }
    const std::shared_ptr<EventQueue>& queue() const { return events_; }

    RequestId submit(Request request) { return client_->submit(std::move(request), EventQueue::sink_of(events_)); }
    RequestId fork(RequestId parent, const SamplingParams& sampling) {
        return client_->fork(parent, sampling, EventQueue::sink_of(events_));
    }
    void cancel(RequestId id) { client_->cancel(id); }
    EngineStats stats() const { return client_->stats(); }
    // Engine only (a member template's body is compiled only where it is used).
    const auto& model() const { return client_->model(); }
    void set_input_closed(bool closed) { client_->set_input_closed(closed); }

    std::vector<Event> wait_events(std::chrono::milliseconds timeout) { return events_->wait(timeout); }
    std::vector<Event> poll_events() { return events_->wait(std::chrono::milliseconds(0)); }

private:
    // Declared before the client: the client (whose threads call the sinks) goes first.
    std::shared_ptr<EventQueue> events_ = std::make_shared<EventQueue>();
    std::unique_ptr<Client> client_;
};

}  // namespace folio::test
