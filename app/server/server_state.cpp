#include "app/server/server_state.h"

namespace folio::server {

LoadedModel::LoadedModel(std::shared_ptr<const Model> m, std::unique_ptr<Engine> e, ServerMetrics& metrics)
    : model(std::move(m)), engine(std::move(e)), input(*model) {
    router = std::make_unique<EventRouter>(*engine, metrics);
}

LoadedModel::~LoadedModel() { engine.reset(); }

}  // namespace folio::server
