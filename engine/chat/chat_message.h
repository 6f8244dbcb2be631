#pragma once
// One message of a conversation, as a chat template sees it.
#include <string>
#include <utility>

namespace folio {

struct ChatMessage {
    ChatMessage() = default;
    // {"user", "Hi"}: most messages have no reasoning.
    ChatMessage(std::string who, std::string text, std::string reasoning = {})
        : role(std::move(who)), content(std::move(text)), reasoning_content(std::move(reasoning)) {}

    std::string role;     // "system", "user", "assistant", "tool"
    std::string content;
    // Assistant: the reasoning that came before `content` (a thinking model's <think> block), passed
    // to the template as `reasoning_content` when not empty, as vLLM and transformers pass it. The
    // template decides what to keep: Qwen3's drops it from turns before the last user message.
    std::string reasoning_content;

    bool operator==(const ChatMessage&) const = default;
};

}  // namespace folio
