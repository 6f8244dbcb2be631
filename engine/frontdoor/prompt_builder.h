#pragma once
// A request's prompt as token ids: ids as given, raw text encoded with BOS per tokenizer_config, or
// chat messages rendered with the model's chat template and encoded — with the generation prompt
// added, or (Request::continue_final_message) cut right after the final assistant message.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/frontdoor/request.h"

namespace folio {

struct Model;
struct ChatPrompt;  // engine/chat/chat_prompt.h

// Throws folio::Error with a message for the user: no prompt or more than one kind given, an id
// outside the vocabulary, a template that cannot be rendered, a final message that cannot be
// continued. Logs nothing: the template's warnings are appended to `warnings` when given.
std::vector<int32_t> build_prompt_ids(const Model& model, const Request& request,
                                      std::vector<std::string>* warnings = nullptr);

// The chat template's text for a request with chat messages (what build_prompt_ids encodes).
ChatPrompt render_request_chat(const Model& model, const Request& request);

// transformers' continue_final_message on a conversation rendered without a generation prompt:
// `rendered` cut right after the final message's `content`, found as its last occurrence with
// surrounding whitespace stripped (templates often strip it); a trailing space the template kept is
// kept. `after_content` is what the template writes after that message (its end of turn, found by
// rendering a marker in the content's place; may be empty): when `rendered` ends with it the content
// is looked for before it, so a reply as short as "s" is not found inside "</s>". Throws folio::Error
// when the content is blank or does not appear (the template changed or dropped it).
std::string cut_after_final_message(const std::string& rendered, const std::string& content,
                                    const std::string& after_content);

// Builds the prompts of one loaded model's requests and logs each distinct chat-template warning
// once in its life. The warnings (such as "the checkpoint has no chat_template; using the built-in
// ...") say the same for every request, so the engine keeps one builder per model load rather than
// logging them on every chat request.
class PromptBuilder {
public:
    explicit PromptBuilder(const Model& model) : model_(&model) {}
    std::vector<int32_t> build(const Request& request);
    // Every distinct warning logged so far, oldest first.
    const std::vector<std::string>& warnings() const { return logged_; }

private:
    const Model* model_;
    std::vector<std::string> logged_;
};

}  // namespace folio
