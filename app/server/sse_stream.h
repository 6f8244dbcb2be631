#pragma once
// The server-sent-event framing of one streamed completion, as OpenAI's API and its clients expect
// it: each choice's chunks (the first carries the chat role), a closing chunk per choice with its
// finish_reason, the usage chunk when include_usage was asked, and `data: [DONE]` last. An error
// once the stream has started (the 200 and its headers are gone) is one `data: {"error": {...}}`
// event in OpenAI's error shape, then `data: [DONE]`, as vLLM ends such a stream. No HTTP here: the
// route writes the text these return, and the tests read it.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/server/api_error.h"
#include "app/server/openai_response.h"

namespace folio::server {

// A class because the stream has an order to keep: nothing after its end, one closing chunk a choice.
class SseStream {
public:
    SseStream(ResponseHeader header, int num_choices, bool include_usage);

    // Whether text `text` for choice `i` makes a chunk now. An empty text (a partial character, a
    // possible stop string) does not, once the choice's first chunk (with the role) has gone: its
    // logprobs wait for the next chunk that shows text.
    bool shows(int i, const std::string& text) const;
    // A token's chunk for choice `i` (empty when !shows(i, text), or the stream has ended).
    // `logprobs`: null, or the logprobs object of the tokens this chunk carries.
    std::string token(int i, const std::string& text, const nlohmann::ordered_json& logprobs = nullptr);
    // Choice `i` ends with `reason`: a chunk with its last text when shows(i, text) (with
    // `text_logprobs`), then the chunk with its finish_reason (with `rest_logprobs`: those of tokens
    // whose text never showed, or null). Once every choice has ended: the usage chunk when asked,
    // and [DONE]. Empty when the choice had ended already or the stream has.
    std::string finish(int i, const std::string& text, FinishReason reason, const Usage& usage,
                       const nlohmann::ordered_json& text_logprobs = nullptr,
                       const nlohmann::ordered_json& rest_logprobs = nullptr);
    // The stream fails: the error event and [DONE]. Empty when it has ended already.
    std::string error(const ApiError& e);

    bool ended() const { return ended_; }    // [DONE] has been returned
    bool failed() const { return failed_; }  // it ended with an error
    bool finished(int i) const { return choices_.at(size_t(i)).finished; }

private:
    struct ChoiceState {
        bool role_sent = false;
        bool finished = false;
    };
    std::string chunk(int i, const std::string& text, std::optional<FinishReason> finish, const nlohmann::ordered_json& logprobs);

    ResponseHeader header_;
    bool include_usage_ = false;
    std::vector<ChoiceState> choices_;
    bool ended_ = false;
    bool failed_ = false;
};

}  // namespace folio::server
