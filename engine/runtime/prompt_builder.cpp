#include "engine/runtime/prompt_builder.h"

#include <spdlog/spdlog.h>
#include <string>

#include "engine/chat/chat_prompt.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/tokenizer/prompt_encoding.h"

namespace folio {

std::vector<int32_t> build_prompt_ids(const Model& model, const Request& request) {
    const int kinds = int(!request.prompt_ids.empty()) + int(!request.messages.empty()) + int(!request.prompt_text.empty());
    if (kinds == 0) throw Error("the request has no prompt: give prompt_ids, prompt_text or chat messages");
    if (kinds > 1) throw Error("the request gives more than one prompt: use exactly one of prompt_ids, prompt_text or chat messages");
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
    if (!request.prompt_text.empty()) return encode_prompt(*model.tokenizer, model.tokenizer_config, request.prompt_text, true);
    const ChatPrompt chat = render_chat_prompt(model.config, model.tokenizer_config, model.tokenizer.get(), request.messages, true);
    for (const std::string& w : chat.warnings) spdlog::warn("chat template: {}", w);
    return encode_rendered_chat(*model.tokenizer, model.tokenizer_config, chat.text);
}

}  // namespace folio
