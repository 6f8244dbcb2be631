#include "app/server/server_state.h"

namespace folio::server {

LoadedModel::LoadedModel(std::shared_ptr<const Model> m, std::unique_ptr<EngineClient> e, ServerMetrics& metrics)
    : model(std::move(m)), owned_engine(std::move(e)), engine(owned_engine.get()), requests(*engine, &metrics), input(*model) {}

LoadedModel::LoadedModel(std::shared_ptr<const Model> m, EngineClient& e, ServerMetrics& metrics)
    : model(std::move(m)), engine(&e), requests(e, &metrics), input(*model) {}

// An owned engine stops first: its threads call the sinks of the requests submitted here.
LoadedModel::~LoadedModel() { owned_engine.reset(); }

}  // namespace folio::server
