#include "app/server/server_state.h"

namespace folio::server {

LoadedModel::LoadedModel(std::shared_ptr<const Model> m, std::unique_ptr<Engine> e, ServerMetrics& metrics)
    : model(std::move(m)), owned_engine(std::move(e)), engine(owned_engine.get()), input(*model) {
    owned_router = std::make_unique<EventRouter>(*engine);
    router = owned_router.get();
    router->set_metrics(&metrics);
}

LoadedModel::LoadedModel(std::shared_ptr<const Model> m, EngineClient& e, EventRouter& r, ServerMetrics& metrics)
    : model(std::move(m)), engine(&e), router(&r), input(*model) {
    router->set_metrics(&metrics);
}

LoadedModel::~LoadedModel() { owned_engine.reset(); }

}  // namespace folio::server
