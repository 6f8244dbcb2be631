#pragma once
// Builds the prompt text of a conversation the way the model was trained to see it: with the
// checkpoint's own chat_template when it has one, else with the built-in template of its family.
//
// Choosing a built-in family when the checkpoint has no template (first rule that matches):
//   1. the vocabulary (or eos token) has <|start_header_id|> or <|eot_id|>   → llama3
//   2. it has <|im_start|> or <|im_end|>                                      → chatml
//   3. it has <|user|> or <|assistant|>                                       → zephyr
//   4. model_type is "mistral", or the vocabulary has an [INST] token          → mistral
//   5. model_type is "llama", 32000 tokens, eos </s>                           → llama2
//   6. otherwise llama2 when eos is </s> (the sentencepiece Llama family), else chatml; a warning says
//      that no rule matched.
// A checkpoint template that cannot be parsed (or fails while rendering for a reason other than
// raise_exception) falls back to that built-in with a warning naming both. A template that raises
// (e.g. roles that do not alternate) is the caller's error: TemplateRaisedError is rethrown.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/chat/chat_message.h"
#include "engine/chat/chat_template.h"
#include "engine/model/model_config.h"
#include "engine/tokenizer/tokenizer_config.h"

namespace folio {

class Tokenizer;

struct ChatPrompt {
    std::string text;
    std::string template_name;  // "checkpoint", or the built-in used ("llama2", "mistral", ...)
    std::vector<std::string> warnings;
};

// What the chooser looks at.
struct ChatFamilyFacts {
    std::string model_type;                   // config.json model_type, "" when unknown
    int vocab_size = 0;
    std::string eos_token;
    std::vector<std::string> special_tokens;  // tokens known to be in the vocabulary
};

struct BuiltinChoice {
    std::string name;    // a builtin_chat_templates() name
    std::string reason;  // which fact decided it, for messages
    bool matched = true; // false: no rule matched, this is the default
};

BuiltinChoice choose_builtin_template(const ChatFamilyFacts& facts);

// Everything a prompt is built from; the general form (the CLI uses it with raw JSON messages).
struct ChatPromptSource {
    std::optional<std::string> chat_template;         // the checkpoint's, when it has one
    std::optional<std::string> bos_token, eos_token;  // nullopt: not passed to the template
    ChatFamilyFacts facts;
};

// What a loaded model offers: its tokenizer_config (chat_template, bos/eos tokens: "" means none and
// is not passed to the template), config.json facts, and the tokenizer's vocabulary when given.
ChatPromptSource chat_prompt_source(const ModelConfig& config, const TokenizerConfig& tokenizer_config,
                                    const Tokenizer* tokenizer);

// What a model folder offers: DIR/tokenizer_config.json (read by load_tokenizer_config, with its
// special tokens), and model_type and vocab_size from DIR/config.json when that file exists. Throws
// folio::Error when DIR has no tokenizer_config.json or a file is not valid JSON.
ChatPromptSource chat_prompt_source_from_folder(const std::string& model_dir);

// `messages`: a JSON array of {"role", "content", ...} objects (tool_calls etc. pass through).
// `template_kwargs`: further variables for the template beside the conversation, as transformers'
// apply_chat_template(**kwargs) and vLLM's chat_template_kwargs pass them, e.g. {"enable_thinking":
// false}; a JSON object, or null for none. The variables the renderer sets itself (messages,
// add_generation_prompt, tools, bos_token, eos_token) cannot be given there: folio::Error names it.
ChatPrompt render_chat_prompt(const ChatPromptSource& source, const nlohmann::ordered_json& messages,
                              bool add_generation_prompt, const ChatTemplateOptions& options,
                              const nlohmann::ordered_json& template_kwargs = nullptr);

// For the engine and the app: strftime_now() sees the current local time. `tokenizer` may be null;
// when given, its vocabulary is checked for the tokens the chooser looks for.
ChatPrompt render_chat_prompt(const ModelConfig& config, const TokenizerConfig& tokenizer_config,
                              const std::vector<ChatMessage>& messages, bool add_generation_prompt = true);
ChatPrompt render_chat_prompt(const ModelConfig& config, const TokenizerConfig& tokenizer_config,
                              const Tokenizer* tokenizer, const std::vector<ChatMessage>& messages,
                              bool add_generation_prompt = true,
                              const nlohmann::ordered_json& template_kwargs = nullptr);

// A conversation as the template sees it: {"role", "content"} per message, and "reasoning_content"
// for a message that has some.
nlohmann::ordered_json chat_messages_json(const std::vector<ChatMessage>& messages);

}  // namespace folio
