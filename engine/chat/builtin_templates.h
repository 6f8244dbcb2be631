#pragma once
// Built-in chat templates for checkpoints that ship none: llama2, mistral, zephyr, chatml, llama3 —
// each the real template of its family, so a prompt built from it equals what transformers builds
// for that family's checkpoints (tests render them against the shared vectors).
#include <span>
#include <string_view>

namespace folio {

struct BuiltinChatTemplate {
    std::string_view name;         // "llama2", "mistral", "zephyr", "chatml", "llama3"
    std::string_view description;  // the family and the models it comes from
    std::string_view source;       // the Jinja template
};

std::span<const BuiltinChatTemplate> builtin_chat_templates();
const BuiltinChatTemplate* find_builtin_chat_template(std::string_view name);  // nullptr when unknown

}  // namespace folio
