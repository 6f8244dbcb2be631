#include "engine/frontdoor/text_stream.h"

#include <algorithm>

#include "engine/core/error.h"

namespace folio {

TextStream::TextStream(const Tokenizer& tokenizer, std::vector<std::string> stop_strings, bool continues_text)
    : detok_(tokenizer, continues_text), stops_(std::move(stop_strings)) {
    // An empty stop string would match before any text; validate() refuses it, here it is inert.
    stops_.erase(std::remove(stops_.begin(), stops_.end(), std::string()), stops_.end());
    for (const auto& s : stops_) longest_stop_ = std::max(longest_stop_, s.size());
}

size_t TextStream::held_suffix_length(const std::string& text) const {
    for (size_t len = std::min(text.size(), longest_stop_ ? longest_stop_ - 1 : 0); len > 0; --len) {
        const std::string_view suffix = std::string_view(text).substr(text.size() - len);
        for (const auto& s : stops_)
            if (s.size() > len && std::string_view(s).substr(0, len) == suffix) return len;
    }
    return 0;
}

TextChunk TextStream::push(int32_t token) {
    if (ended_) throw Error("text stream: a token was pushed after the request's text ended");
    ++tokens_;
    std::string text = std::move(held_) + detok_.push(token);
    held_.clear();
    TextChunk out;
    // The earliest stop string wins. held_ never contains a whole one, so a match ends in the new text.
    size_t match = std::string::npos;
    for (const auto& s : stops_) match = std::min(match, text.find(s));
    if (match != std::string::npos) {
        text.resize(match);
        out.text = std::move(text);
        out.stopped = true;
        ended_ = true;
        return out;
    }
    const size_t hold = held_suffix_length(text);
    held_ = text.substr(text.size() - hold);
    text.resize(text.size() - hold);
    out.text = std::move(text);
    return out;
}

std::string TextStream::end() {
    std::string out = std::move(held_) + (ended_ ? std::string() : detok_.finish());
    held_.clear();
    ended_ = true;
    return out;
}

}  // namespace folio
