#pragma once
// What the HTTP handlers share once the model has loaded: the model, the engine, the router that
// hands each request its events, and an input processor for the checks that must answer before a
// response starts (prompt length against the context, the default max_tokens, usage).
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "app/server/event_router.h"
#include "app/server/metrics.h"
#include "engine/frontdoor/engine.h"
#include "engine/frontdoor/input_processor.h"
#include "engine/model/model.h"

namespace folio::server {

struct LoadedModel {
    // folio-server: owns the engine and makes its router.
    LoadedModel(std::shared_ptr<const Model> model, std::unique_ptr<Engine> engine, ServerMetrics& metrics);
    // The desktop app: borrows its engine and the router it made for it (which also passes the GUI's
    // own requests' events on). The lender keeps both alive until HttpServer::detach has returned.
    LoadedModel(std::shared_ptr<const Model> model, EngineClient& engine, EventRouter& router, ServerMetrics& metrics);
    ~LoadedModel();

    std::shared_ptr<const Model> model;
    // The router is declared before the engine so the engine (whose output thread calls the router)
    // stops first.
    std::unique_ptr<EventRouter> owned_router;
    std::unique_ptr<Engine> owned_engine;
    EngineClient* engine = nullptr;  // owned_engine's, or the lender's
    EventRouter* router = nullptr;  // owned_router's, or the lender's
    std::mutex input_mutex;  // InputProcessor keeps state (logged template warnings)
    InputProcessor input;
    // Completion requests being answered on this model (each from its parse to its last byte).
    std::atomic<int> requests_in_flight{0};
    // Why the server let go of this model (HttpServer::detach), written before the requests in flight
    // are cancelled: their clients get it as an error, since OpenAI has no "cancelled" finish.
    std::string withdrawn_because;
};

}  // namespace folio::server
