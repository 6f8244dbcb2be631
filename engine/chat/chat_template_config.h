#pragma once
// What a checkpoint folder says about building chat prompts, read with a small reader of its own (the
// engine's general tokenizer_config loader lives in engine/tokenizer; this one also keeps what that
// one does not need: null tokens and the special tokens the vocabulary holds).
//
// tokenizer_config.json: chat_template (a string, or a list of {"name", "template"} from which
// "default" is taken), bos_token/eos_token (strings or {"content": ...} objects, null = none), and the
// special tokens (added_tokens_decoder, additional_special_tokens). A chat_template.jinja file next to
// it takes precedence, as in transformers. config.json (optional): model_type and vocab_size.
#include <optional>
#include <string>
#include <vector>

namespace folio {

struct ChatTemplateConfig {
    std::optional<std::string> chat_template;
    std::string chat_template_origin;  // "tokenizer_config.json" or "chat_template.jinja"
    std::optional<std::string> bos_token, eos_token;  // nullopt: absent or null (not passed to the template)
    std::vector<std::string> special_tokens;          // every special token the folder declares
    std::string model_type;                           // from config.json, "" when unknown
    int vocab_size = 0;                               // from config.json, 0 when unknown
};

// `source` names the file in error messages. Throws folio::Error for invalid JSON or a field of the
// wrong type.
void parse_tokenizer_config_json(const std::string& text, const std::string& source, ChatTemplateConfig& out);
void parse_model_config_json(const std::string& text, const std::string& source, ChatTemplateConfig& out);

// Reads DIR/tokenizer_config.json (required), DIR/chat_template.jinja and DIR/config.json (optional).
ChatTemplateConfig read_chat_template_config(const std::string& model_dir);

}  // namespace folio
