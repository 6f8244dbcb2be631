#pragma once
// One message of a conversation, as a chat template sees it.
#include <string>

namespace folio {

struct ChatMessage {
    std::string role;     // "system", "user", "assistant", "tool"
    std::string content;
};

}  // namespace folio
