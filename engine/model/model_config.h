#pragma once
// Hyper-parameters of a Llama-family checkpoint, read from config.json (plus the AWQ settings, which
// may sit in config.json's quantization_config or in a separate quant_config.json/quantize_config.json).
#include <optional>
#include <string>
#include <vector>

#include "engine/core/dtype.h"

namespace folio {

// Llama-3.1 style "llama3" rope scaling, or linear/dynamic-free "linear" scaling. Read from
// "rope_scaling" or, as transformers 5 writes it, from "rope_parameters" (which also holds rope_theta).
struct RopeScaling {
    std::string type;  // "llama3" or "linear"
    float factor = 1.0f;
    float low_freq_factor = 1.0f;
    float high_freq_factor = 4.0f;
    int original_max_position_embeddings = 8192;
};

// FP8 weights (engine/model/fp8_config.h parses them): AutoFP8 (quant_method "fp8") or llm-compressor
// (quant_method "compressed-tensors", format "float-quantized"), or fp16/bf16 weights quantized at load.
struct Fp8Config {
    enum class Source { AutoFp8, CompressedTensors, AtLoad };
    enum class WeightScales { PerTensor, PerChannel };
    // What the checkpoint says about activations. Weight-only: none quantized. Dynamic scales are
    // computed per forward pass (per tensor or per token); Static ones are each linear's input_scale.
    enum class Activations { WeightOnly, DynamicPerTensor, DynamicPerToken, StaticPerTensor };
    Source source = Source::AutoFp8;
    WeightScales weight_scales = WeightScales::PerTensor;
    Activations activations = Activations::DynamicPerTensor;
    // Linear modules left unquantized: exact module names ("lm_head", "model.layers.0.mlp.down_proj")
    // or, with the prefix "re:", regular expressions matched from the start of the name.
    std::vector<std::string> ignored;
    // compressed-tensors kv_cache_scheme: the checkpoint holds calibrated per-layer k/v scales.
    bool kv_cache_scheme = false;
};

struct QuantConfig {
    enum class Method { None, Awq, Fp8 };
    Method method = Method::None;
    int bits = 4;
    int group_size = 128;
    bool zero_point = true;
    std::string version = "gemm";
    // Linear modules left unquantized (matched as substrings of the tensor name, as AutoAWQ does).
    std::vector<std::string> modules_to_not_convert;
    // Method Awq read from a compressed-tensors "pack-quantized" W4A16 checkpoint
    // (compressed_tensors_config.h): each linear's weight_packed / weight_scale / weight_zero_point
    // is repacked at load into the AWQ layout; zero_point false means symmetric (every zero is 8).
    // `ignore` lists the modules left unquantized (exact names or "re:" patterns, module_ignored).
    bool pack_quantized = false;
    std::vector<std::string> ignore;
    Fp8Config fp8;  // method == Fp8
};

struct ModelConfig {
    std::string architecture;  // a name of the architecture table (architectures.h): "LlamaForCausalLM", ...
    std::string model_type;    // "llama", "mistral", "qwen2", "qwen3"
    int hidden_size = 0;
    int intermediate_size = 0;
    int num_layers = 0;
    int num_heads = 0;
    int num_kv_heads = 0;
    int head_dim = 0;  // hidden_size / num_heads unless config.json says otherwise
    int vocab_size = 0;
    int max_position_embeddings = 2048;
    float rms_norm_eps = 1e-5f;
    float rope_theta = 10000.0f;
    std::optional<RopeScaling> rope_scaling;
    std::optional<int> sliding_window;  // Mistral v0.1 (4096); null for v0.2+
    bool tie_word_embeddings = false;
    int bos_token_id = 1;
    std::vector<int> eos_token_ids{2};
    // Not from config.json: the tokenizer's size when the model's loader knows it (load_model). Ids at or
    // past it are embedding rows padded past the tokenizer (Qwen: 151936 rows, 151669 tokens): they
    // decode to nothing, so they are never sampled (ModelPlan::sampled_vocab). 0: every id is a token.
    int decodable_vocab = 0;
    DType torch_dtype = DType::F16;
    QuantConfig quant;
};

// Parses config.json (and the AWQ side files next to it). Throws folio::Error naming the file and the
// field when a value is missing, of the wrong type, inconsistent (e.g. heads not dividing hidden size)
// or when the architecture is not in the architecture table (architectures.h).
ModelConfig load_model_config(const std::string& model_dir);

// Same, from an already parsed JSON text; `source` names the file in error messages.
ModelConfig parse_model_config(const std::string& json_text, const std::string& source);

// The sliding window attention uses, in keys (0: every earlier key is attended), and by which the KV
// cache may release blocks. transformers applies `sliding_window` in Mistral's attention only (the
// architecture table's honours_sliding_window; Llama's attention ignores the field, which some
// Llama-architecture configs carry); a window covering the whole context changes nothing, so it reads
// as 0 too. The plan functions and the engine take it from here so masks and releases agree.
int attention_window(const ModelConfig& config);

}  // namespace folio
