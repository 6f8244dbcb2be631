#include "engine/frontdoor/prompt_builder.h"

#include <algorithm>
#include <spdlog/spdlog.h>
#include <string>

#include "engine/chat/chat_prompt.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/tokenizer/prompt_encoding.h"

namespace folio {

namespace {

// Python's str.strip() on the whitespace templates meet in practice.
constexpr const char* k_space = " \t\n\r\v\f";

std::string lstrip(const std::string& s) {
    const size_t b = s.find_first_not_of(k_space);
    return b == std::string::npos ? std::string() : s.substr(b);
}

std::string strip(const std::string& s) {
    const std::string l = lstrip(s);
    return l.substr(0, l.find_last_not_of(k_space) + 1);
}

// Stands in for the final message's content to learn what the template writes after it: no
// whitespace (strip() leaves it alone) and nothing a conversation would contain.
constexpr const char* k_marker = "FolioContinueMarker7f3c";

void check_continuation(const Request& request) {
    if (request.messages.empty())
        throw Error("continue_final_message applies to chat messages only: give the conversation as messages");
    const ChatMessage& last = request.messages.back();
    if (last.role != "assistant")
        throw Error("continue_final_message needs a conversation that ends with the assistant message to continue; "
                    "this one ends with a \"" + last.role + "\" message");
    if (strip(last.content).empty())
        throw Error("the final assistant message is empty, so there is nothing to continue: send the conversation "
                    "without it to start a new reply");
}

}  // namespace

std::string cut_after_final_message(const std::string& rendered, const std::string& content,
                                    const std::string& after_content) {
    const std::string needle = strip(content);
    if (needle.empty()) throw Error("the final message is empty: there is nothing to continue");
    size_t search_end = rendered.size();
    if (!after_content.empty() && rendered.size() >= after_content.size() &&
        rendered.compare(rendered.size() - after_content.size(), after_content.size(), after_content) == 0)
        search_end = rendered.size() - after_content.size();
    const size_t at = needle.size() > search_end ? std::string::npos : rendered.rfind(needle, search_end - needle.size());
    if (at == std::string::npos)
        throw Error("cannot continue the final message: its text does not appear in the prompt the chat template "
                    "rendered (the template changes or drops it); regenerate the reply instead");
    // As transformers: keep the message's trailing whitespace when the template kept it too.
    const std::string kept = lstrip(content);
    if (rendered.compare(at, kept.size(), kept) == 0) return rendered.substr(0, at + kept.size());
    return rendered.substr(0, at + needle.size());
}

ChatPrompt render_request_chat(const Model& model, const Request& request) {
    const nlohmann::ordered_json& kwargs = request.chat_template_kwargs;
    if (!request.continue_final_message)
        return render_chat_prompt(model.config, model.tokenizer_config, model.tokenizer.get(), request.messages, true, kwargs);
    check_continuation(request);
    ChatPrompt whole =
        render_chat_prompt(model.config, model.tokenizer_config, model.tokenizer.get(), request.messages, false, kwargs);
    std::vector<ChatMessage> marked = request.messages;
    marked.back().content = k_marker;
    const std::string with_marker =
        render_chat_prompt(model.config, model.tokenizer_config, model.tokenizer.get(), marked, false, kwargs).text;
    const size_t m = with_marker.rfind(k_marker);
    const std::string after = m == std::string::npos ? std::string() : with_marker.substr(m + std::string(k_marker).size());
    whole.text = cut_after_final_message(whole.text, request.messages.back().content, after);
    return whole;
}

std::vector<int32_t> build_prompt_ids(const Model& model, const Request& request, std::vector<std::string>* warnings) {
    const int kinds = int(!request.prompt_ids.empty()) + int(!request.messages.empty()) + int(request.prompt_text.has_value());
    if (kinds == 0) throw Error("the request has no prompt: give prompt_ids, prompt_text or chat messages");
    if (kinds > 1) throw Error("the request gives more than one prompt: use exactly one of prompt_ids, prompt_text or chat messages");
    if (request.continue_final_message && request.messages.empty())
        throw Error("continue_final_message applies to chat messages only: give the conversation as messages");
    if (!request.prompt_ids.empty()) {
        const int vocab = model.config.vocab_size;
        for (size_t i = 0; i < request.prompt_ids.size(); ++i) {
            const int32_t id = request.prompt_ids[i];
            if (id < 0 || id >= vocab)
                throw Error("prompt token " + std::to_string(i) + " is id " + std::to_string(id) + ", outside the model's vocabulary of " +
                            std::to_string(vocab));
        }
        return request.prompt_ids;
    }
    if (!model.tokenizer) throw Error("the model has no tokenizer: give the prompt as token ids");
    if (request.prompt_text) {
        std::vector<int32_t> ids = encode_prompt(*model.tokenizer, model.tokenizer_config, *request.prompt_text, true);
        if (ids.empty())
            throw Error("the prompt is empty and this model's tokenizer adds no BOS token (tokenizer_config.json: "
                        "add_bos_token is false or there is no bos_token), so there is nothing to generate from: "
                        "give some prompt text");
        return ids;
    }
    const ChatPrompt chat = render_request_chat(model, request);
    if (warnings) warnings->insert(warnings->end(), chat.warnings.begin(), chat.warnings.end());
    return encode_rendered_chat(*model.tokenizer, model.tokenizer_config, chat.text);
}

std::vector<int32_t> PromptBuilder::build(const Request& request) {
    std::vector<std::string> warnings;
    std::vector<int32_t> ids = build_prompt_ids(*model_, request, &warnings);
    for (std::string& w : warnings) {
        if (std::find(logged_.begin(), logged_.end(), w) != logged_.end()) continue;
        spdlog::warn("chat template: {}", w);
        logged_.push_back(std::move(w));
    }
    return ids;
}

}  // namespace folio
