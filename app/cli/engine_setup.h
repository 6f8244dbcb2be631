#pragma once
// What generate, chat, folio-server and the benchmark share: the model, backend and sampling options
// of the command line, turned into engine objects (the engine itself through make_engine,
// engine/client).
#include <memory>
#include <set>
#include <string>

#include "app/cli/cli_args.h"
#include "engine/frontdoor/engine_client.h"
#include "engine/model/model.h"
#include "engine/runtime/engine_options.h"
#include "engine/sampling/sampling_params.h"

namespace folio::cli {

// Options every model-running command accepts.
std::set<std::string> model_options();        // --model --backend --threads --tokenizer --kv-cache-mb --weights-seed
                                              // --cpu-activations --quantization --kv-cache-dtype
std::set<std::string> model_flags();          // --calculate-kv-scales
std::set<std::string> sampling_options();     // --temperature --top-p --top-k --min-p --repetition-penalty --presence-penalty ...
// Their lines of a usage text.
const char* model_options_usage();
const char* sampling_options_usage();

// --backend's value, checked (UsageError unless auto, cpu or cuda); "auto" when absent.
std::string backend_from_args(const Args& args);
// --cpu-activations' value, checked (UsageError unless int8 or exact); int8 when absent.
CpuActivations cpu_activations_from_args(const Args& args);
std::shared_ptr<const Model> load_model_from_args(const Args& args, bool show_progress);
// Shows a load's phases on one line of stderr when stderr is a terminal (empty otherwise).
LoadProgressFn terminal_load_progress();
EngineOptions engine_options_from_args(const Args& args);
// Sampling from the flags (a value out of its range is a UsageError), falling back to the checkpoint's generation_config.json, then greedy.
SamplingParams sampling_from_args(const Args& args, const Model& model);
SamplingParams sampling_from_args(const Args& args, const GenerationDefaults& defaults);

// The remote engine's options: --endpoint URL [--api-key KEY] [--remote-model NAME].
std::set<std::string> remote_options();
// Their lines of a usage text.
const char* remote_options_usage();
// --backend remote: an OpenAI-compatible server runs the model.
bool is_remote(const Args& args);

// What generate and chat run on: the engine the flags name (a model loaded here, or a server) and
// the sampling they ask for.
struct OpenedEngine {
    std::unique_ptr<EngineClient> client;
    // The flags, with the local model's generation_config.json as fallback (remote: the flags, else
    // greedy).
    SamplingParams sampling;
};
// Loads the model and starts the engine (local) or checks the endpoint (remote); throws folio::Error
// for bad flags, an unloadable model or an unreachable server.
OpenedEngine open_engine(const Args& args, bool show_progress);
// For display: "NAME (QUANTIZATION)", or a server's model id.
std::string model_display_name(const EngineModelInfo& info);

}  // namespace folio::cli
