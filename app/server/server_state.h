#pragma once
// What the HTTP handlers share once the model has loaded: the model, the engine, the router that
// hands each request its events, and an input processor for the checks that must answer before a
// response starts (prompt length against the context, the default max_tokens, usage).
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
    LoadedModel(std::shared_ptr<const Model> model, std::unique_ptr<Engine> engine, ServerMetrics& metrics);
    ~LoadedModel();

    std::shared_ptr<const Model> model;
    // The router is declared before the engine so the engine (whose output thread calls the router)
    // stops first.
    std::unique_ptr<EventRouter> router;
    std::unique_ptr<Engine> engine;
    std::mutex input_mutex;  // InputProcessor keeps state (logged template warnings)
    InputProcessor input;
};

}  // namespace folio::server
