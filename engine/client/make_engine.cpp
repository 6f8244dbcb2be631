#include "engine/client/make_engine.h"

#include <type_traits>

#include "engine/backends/backend_factory.h"

namespace folio {

std::unique_ptr<Backend> make_model_backend(const Model& model, const BackendOptions& options) {
    return make_backend(model, options);
}

std::unique_ptr<Engine> make_local_engine(std::shared_ptr<const Model> model, const EngineOptions& options,
                                          const BackendWrap& wrap) {
    std::unique_ptr<Backend> backend = make_backend(*model, backend_options_for(options));
    if (wrap) backend = wrap(std::move(backend));
    // The engine's constructor throws before it starts a thread (a pool that does not fit): the
    // backend and the model are freed on the way out, nothing keeps running.
    return std::make_unique<Engine>(std::move(model), std::move(backend), options);
}

std::unique_ptr<SyncEngine> make_sync_engine(std::shared_ptr<const Model> model, const EngineOptions& options) {
    std::unique_ptr<Backend> backend = make_backend(*model, backend_options_for(options));
    return std::make_unique<SyncEngine>(std::move(model), std::move(backend), options);
}

std::unique_ptr<EngineClient> make_engine(const EngineSpec& spec) {
    if (const auto* remote = std::get_if<RemoteEngineSpec>(&spec)) return std::make_unique<remote::RemoteEngine>(*remote);
    const auto& local = std::get<LocalEngineSpec>(spec);
    std::shared_ptr<const Model> model = load_model(local.model, local.load);
    return make_local_engine(std::move(model), local.engine);
}

}  // namespace folio
