#pragma once
// tokenizer_config.json: BOS/EOS handling, the special-token strings and the chat template. It belongs
// to the tokenizer (how a prompt becomes ids); the model holds one, the chat templates read one.
#include <optional>
#include <string>
#include <vector>

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

// Reads DIR/tokenizer_config.json (DIR may also be given as a file in it, e.g. its tokenizer.model),
// with special_tokens_map.json and chat_template.jinja/.json filling what it leaves out, as
// transformers does. Defaults when the file is absent; throws folio::Error naming the file and field
// when one is malformed.
TokenizerConfig load_tokenizer_config(const std::string& model_dir);

}  // namespace folio
