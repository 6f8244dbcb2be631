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

namespace folio {

// An entry of tokenizer_config.json's "added_tokens_decoder": a string that stands for one token.
struct AddedToken {
    int id = -1;
    std::string content;
    bool lstrip = false;  // swallows the whitespace on its left
    bool rstrip = false;  // swallows the whitespace on its right
    bool special = true;
};

// tokenizer_config.json: BOS/EOS handling and the chat template.
struct TokenizerConfig {
    bool add_bos_token = true;
    bool add_eos_token = false;
    std::string bos_token = "<s>";  // may be given as a string or an {"content": ...} object; "" when null
    std::string eos_token = "</s>";
    std::string unk_token = "<unk>";
    std::optional<std::string> chat_template;  // the "default" one when a list of named templates is given
    int model_max_length = 0;                  // 0 when absent or absurd (HF uses 1e30 for "none")
    // transformers' LlamaTokenizer: legacy=true (the default) gives every piece of text between
    // special tokens sentencepiece's dummy prefix '▁'; legacy=false gives it only to the start.
    bool legacy = true;
    bool add_prefix_space = true;  // legacy=false only: the '▁' at the very start
    std::vector<AddedToken> added_tokens;
};

// generation_config.json: the checkpoint's own sampling defaults.
struct GenerationDefaults {
    std::vector<int> eos_token_ids;
    bool do_sample = false;
    std::optional<float> temperature, top_p, repetition_penalty;
    std::optional<int> top_k;
};

struct Model {
    std::string spec;  // what the user gave: a folder path or "dummy:NAME"
    std::string name;  // for display: folder name or dummy name
    ModelConfig config;
    ModelWeights weights;
    std::shared_ptr<const Tokenizer> tokenizer;
    TokenizerConfig tokenizer_config;
    GenerationDefaults generation;

    // Every id that ends generation: config eos ids, generation_config eos ids, tokenizer eos.
    std::vector<int> stop_token_ids() const;
    // "fp16", "bf16", "fp32" or "awq-int4-g128".
    std::string quantization_name() const;
    int context_length() const { return config.max_position_embeddings; }
};

struct LoadOptions {
    // The phases of the load as they go (engine/core/load_progress.h); called from the loading thread.
    LoadProgressFn progress;
    // dummy: models only: a folder or file with tokenizer.model to use (otherwise a byte tokenizer).
    std::string tokenizer_path;
    uint64_t seed = 1234;
};

// Loads a local HF folder or a dummy:NAME model. Throws folio::Error with a message naming the file,
// tensor or setting at fault.
std::unique_ptr<Model> load_model(const std::string& spec, const LoadOptions& options = {});

// Tokenizer-only loading (a folder with tokenizer.model, or the file itself).
std::shared_ptr<const Tokenizer> load_tokenizer(const std::string& path);
TokenizerConfig load_tokenizer_config(const std::string& model_dir);  // defaults when the file is absent
// The byte-level fallback for dummy models given no tokenizer (Llama-like layout: ids 3..258 are bytes).
std::shared_ptr<const Tokenizer> make_byte_tokenizer(int vocab_size);

}  // namespace folio
