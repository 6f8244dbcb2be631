#pragma once
// A request's text as its tokens leave the core: its streaming detokenizer and its stop strings,
// deciding token by token which text may be shown now.
//  - A stop string, matched across token boundaries, ends the stream: the text before it is shown,
//    the stop string and anything after it are not. Text that could still be the beginning of a stop
//    string is held back until it is known not to be.
//  - Every other end is the core's (an end token, max_tokens, the context, a cancel): end() then
//    releases what is held. An end token is not pushed: its text is never shown.
// The concatenation of every push() and end() is tokenizer.decode(ids), cut before the first stop
// string.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/tokenizer/streaming_detokenizer.h"

namespace folio {

struct TextChunk {
    std::string text;      // may be shown now (may be empty)
    bool stopped = false;  // a stop string matched: the stream has ended
};

class TextStream {
public:
    // `tokenizer` must outlive the stream. Empty stop strings are ignored (validate() refuses them).
    // `continues_text`: the tokens continue text printed before (a continued reply, a fork
    // mid-generation), so the tokenizer's leading-space rule does not apply to the first one.
    TextStream(const Tokenizer& tokenizer, std::vector<std::string> stop_strings, bool continues_text = false);

    // One generated token. Throws folio::Error after the stream has ended, or for an id outside the
    // vocabulary.
    TextChunk push(int32_t token);

    // Everything still held back, for a request that ends for a reason of the core's: text held as a
    // possible stop string start, and an unfinished character as U+FFFD. Ends the stream; empty when
    // it had ended already.
    std::string end();

    bool ended() const { return ended_; }
    int tokens() const { return tokens_; }  // tokens pushed

private:
    // Longest suffix of `text` that is a proper prefix of some stop string.
    size_t held_suffix_length(const std::string& text) const;

    StreamingDetokenizer detok_;
    std::vector<std::string> stops_;
    std::string held_;  // emitted by the detokenizer, not yet released
    size_t longest_stop_ = 0;
    int tokens_ = 0;
    bool ended_ = false;
};

}  // namespace folio
