#pragma once
// The one place an engine is built: a model loaded here and run on a local backend, or a remote
// OpenAI-compatible server. Every front end calls make_engine and then sees only EngineClient.
#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "engine/backend/backend.h"
#include "engine/frontdoor/engine.h"
#include "engine/frontdoor/engine_client.h"
#include "engine/frontdoor/sync_engine.h"
#include "engine/model/model.h"
#include "engine/remote/remote_engine.h"
#include "engine/runtime/engine_options.h"

namespace folio {

// A model on this machine: what load_model takes, and the engine's options (backend, KV pool, ...).
struct LocalEngineSpec {
    std::string model;  // a folder, a Hub id in the cache, or "dummy:NAME"
    LoadOptions load;
    EngineOptions engine;
};

// A server that runs the model (engine/remote/remote_engine.h).
using RemoteEngineSpec = remote::RemoteOptions;

using EngineSpec = std::variant<LocalEngineSpec, RemoteEngineSpec>;

// Loads the model and starts the engine, or checks the server. Throws folio::Error with what to fix
// (the file, tensor or setting at fault; an unreachable server; a pool that does not fit). Nothing is
// left running when it throws, so a caller can keep its previous engine until this one returns.
std::unique_ptr<EngineClient> make_engine(const EngineSpec& spec);

// For front ends that load the model themselves and keep it (the server checks prompts against it,
// a benchmark reads its vocabulary): the engine on the backend the options pick. `wrap`, when given,
// wraps that backend first (a benchmark's step clock). Throws as make_engine.
using BackendWrap = std::function<std::unique_ptr<Backend>(std::unique_ptr<Backend>)>;
std::unique_ptr<Engine> make_local_engine(std::shared_ptr<const Model> model, const EngineOptions& options,
                                          const BackendWrap& wrap = {});

// The engine-internal step-by-step engine (the caller drives each step, no threads) on the backend
// the options pick: for folio-bench's kernel and step suites, never for a front end.
std::unique_ptr<SyncEngine> make_sync_engine(std::shared_ptr<const Model> model, const EngineOptions& options);

// The backend the options pick, alone: for tools that run a model's forward passes without an
// engine (perplexity).
std::unique_ptr<Backend> make_model_backend(const Model& model, const BackendOptions& options);

}  // namespace folio
