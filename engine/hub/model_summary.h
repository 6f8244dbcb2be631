#pragma once
// What a model folder is without loading it: family, parameters, format, bytes of weights and the
// KV geometry, read from config.json and the safetensors headers (a few KB per file, no tensor data),
// and whether the engine's config reader accepts it.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace folio::hub {

struct ModelSummary {
    std::string dir;
    std::string architecture;     // "LlamaForCausalLM"
    std::string model_type;       // "llama"
    std::string family;           // for people: "Llama", "Mistral", "Qwen2", ...
    uint64_t parameters = 0;      // from the headers; packed 4-bit weights counted unpacked
    std::string format;           // "bf16", "fp16", "fp32", "AWQ 4-bit g128", "FP8", "GPTQ 4-bit", ...
    uint64_t weight_bytes = 0;    // tensor data as stored
    uint64_t f32_weight_bytes = 0;  // the part of it stored as F32 (the CUDA backend holds it in fp16)
    // The shapes the memory estimate needs (0 when config.json lacks them).
    int hidden_size = 0, intermediate_size = 0, num_layers = 0, num_heads = 0, num_kv_heads = 0, head_dim = 0;
    int vocab_size = 0;
    int max_context = 0;          // max_position_embeddings
    int sliding_window = 0;       // keys attended when the model uses a sliding window, else 0
    std::vector<std::string> missing_files;  // weight shards the index names that are not there
    std::string problem;          // why Folio cannot run it as it is ("" when the config reader accepts it)
};

// Never throws for a bad model: what is wrong goes to `problem` (no config.json, bad JSON, an
// architecture or format the engine refuses, missing shards, a header that does not parse).
ModelSummary summarize_model(const std::string& dir);

// The same from a config.json object alone (the catalog's models, before they are downloaded):
// weight_bytes comes from `weight_bytes`, parameters and format from the caller.
ModelSummary summarize_config(const nlohmann::json& config, uint64_t weight_bytes);

// "8.0B", "494M", "" for 0.
std::string parameters_text(uint64_t parameters);

}  // namespace folio::hub
