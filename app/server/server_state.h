#pragma once
// What the HTTP handlers share once the model has loaded: the model, the engine (an EngineClient),
// the API requests in flight on it (each with its own event sink), and an input processor for the checks that must answer before a
// response starts (prompt length against the context, the default max_tokens, usage).
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "app/server/api_requests.h"
#include "app/server/metrics.h"
#include "engine/frontdoor/engine_client.h"
#include "engine/frontdoor/input_processor.h"
#include "engine/model/model.h"

namespace folio::server {

struct LoadedModel {
    // folio-server: owns the engine (make_engine, engine/client).
    LoadedModel(std::shared_ptr<const Model> model, std::unique_ptr<EngineClient> engine, ServerMetrics& metrics);
    // The desktop app: borrows its engine; the app's own requests go to their own sinks. The lender
    // keeps the engine alive until HttpServer::detach has returned.
    LoadedModel(std::shared_ptr<const Model> model, EngineClient& engine, ServerMetrics& metrics);
    ~LoadedModel();

    std::shared_ptr<const Model> model;
    std::unique_ptr<EngineClient> owned_engine;
    EngineClient* engine = nullptr;  // owned_engine's, or the lender's
    ApiRequests requests;            // this server's requests on `engine`
    std::mutex input_mutex;  // InputProcessor keeps state (logged template warnings)
    InputProcessor input;
    // Completion requests being answered on this model (each from its parse to its last byte).
    std::atomic<int> requests_in_flight{0};
    // Why the server let go of this model (HttpServer::detach), written before the requests in flight
    // are cancelled: their clients get it as an error, since OpenAI has no "cancelled" finish.
    std::string withdrawn_because;
};

}  // namespace folio::server
