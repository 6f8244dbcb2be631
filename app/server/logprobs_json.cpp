#include "app/server/logprobs_json.h"

#include <cmath>
#include <exception>

namespace folio::server {

using json = nlohmann::ordered_json;

namespace {

double finite(float x) { return std::isfinite(x) ? double(x) : -9999.0; }

json bytes_of(const std::string& s) {
    json b = json::array();
    for (unsigned char c : s) b.push_back(int(c));
    return b;
}

}  // namespace

std::string token_text(const Tokenizer& tokenizer, int32_t token) {
    try {
        std::string s = tokenizer.token_bytes(token);
        if (s.empty() && tokenizer.is_control(token)) s = tokenizer.piece(token);
        return s;
    } catch (const std::exception&) {
        return {};  // an id past the tokenizer (a padded vocabulary): no text
    }
}

json chat_logprob_entry(const Tokenizer& tokenizer, int32_t token, const TokenLogprobs& lp) {
    const std::string text = token_text(tokenizer, token);
    json top = json::array();
    for (const TokenLogprob& t : lp.top) {
        const std::string alt = token_text(tokenizer, t.id);
        top.push_back({{"token", alt}, {"logprob", finite(t.logprob)}, {"bytes", bytes_of(alt)}});
    }
    return {{"token", text}, {"logprob", finite(lp.logprob)}, {"bytes", bytes_of(text)}, {"top_logprobs", top}};
}

namespace {

json empty_completion_logprobs() {
    return {{"tokens", json::array()}, {"token_logprobs", json::array()}, {"top_logprobs", json::array()}, {"text_offset", json::array()}};
}

}  // namespace

json CompletionLogprobs::take() {
    json out = object.empty() ? empty_completion_logprobs() : std::move(object);
    object = json::object();
    return out;
}

void CompletionLogprobs::add(const Tokenizer& tokenizer, int32_t token, const TokenLogprobs& lp, size_t& text_offset) {
    if (object.empty()) object = empty_completion_logprobs();
    const std::string text = token_text(tokenizer, token);
    json top = json::object();
    for (const TokenLogprob& t : lp.top) top[token_text(tokenizer, t.id)] = finite(t.logprob);
    object["tokens"].push_back(text);
    object["token_logprobs"].push_back(finite(lp.logprob));
    object["top_logprobs"].push_back(top);
    object["text_offset"].push_back(text_offset);
    text_offset += text.size();
}

}  // namespace folio::server
