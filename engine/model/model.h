#pragma once
// A loaded model: everything the engine needs from a Hugging Face folder or a dummy:NAME spec.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/load_progress.h"
#include "engine/model/model_config.h"
#include "engine/model/weights.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/tokenizer_config.h"

namespace folio {

// generation_config.json: the checkpoint's own sampling defaults.
struct GenerationDefaults {
    std::vector<int> eos_token_ids;
    bool do_sample = false;
    std::optional<float> temperature, top_p, repetition_penalty;
    std::optional<int> top_k;
};

// How loading went, for the CLI and benchmarks.
struct LoadStats {
    double seconds = 0;           // the whole load_model call
    double quantize_seconds = 0;  // of which converting weights at load (--quantization fp8)
    uint64_t quantized_bytes_before = 0, quantized_bytes_after = 0;  // the converted linears
    uint64_t peak_rss_bytes = 0;  // the process's peak resident memory when loading ended (VmHWM)
};

struct Model {
    std::string spec;  // what the user gave: a folder path or "dummy:NAME"
    std::string name;  // for display: folder name or dummy name
    ModelConfig config;
    ModelWeights weights;
    std::shared_ptr<const Tokenizer> tokenizer;
    TokenizerConfig tokenizer_config;
    GenerationDefaults generation;
    LoadStats load_stats;

    // Every id that ends generation: config eos ids, generation_config eos ids, tokenizer eos.
    std::vector<int> stop_token_ids() const;
    // "fp16", "bf16", "fp32", "awq-int4-g128", "fp8-e4m3-tensor", "fp8-e4m3-channel" or
    // "fp8-e4m3-channel (at load)".
    std::string quantization_name() const;
    int context_length() const { return config.max_position_embeddings; }
};

struct LoadOptions {
    // The phases of the load as they go (engine/core/load_progress.h); called from the loading thread.
    LoadProgressFn progress;
    // dummy: models only: a folder or file with tokenizer.model to use (otherwise a byte tokenizer).
    std::string tokenizer_path;
    uint64_t seed = 1234;
    // "" (as stored) or "fp8": decoder linears converted to FP8 E4M3 at load (engine/model/fp8_quantize.h).
    std::string quantization;
};

// Loads a local HF folder or a dummy:NAME model. Throws folio::Error with a message naming the file,
// tensor or setting at fault.
std::unique_ptr<Model> load_model(const std::string& spec, const LoadOptions& options = {});

// How a model folder is named for people: the folder's name, or "org/name" for a snapshot of the
// Hugging Face hub cache (.../models--org--name/snapshots/<commit>), whose own name is a commit hash.
std::string model_display_name(const std::string& dir);

}  // namespace folio
