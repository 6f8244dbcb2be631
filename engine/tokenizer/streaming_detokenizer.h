#pragma once
// Token-by-token text for a generated sequence. push() returns the text the new token completes;
// the concatenation of every push() and finish() equals tokenizer.decode(all ids), byte for byte:
//  - it never returns half a UTF-8 character: an incomplete sequence from byte pieces is held until
//    a later byte completes it, and becomes U+FFFD (one per byte) exactly where decode() would put
//    it: when a non-byte token ends the run, or at finish();
//  - the leading-space rule of the tokenizer (sentencepiece's dummy prefix) is applied to the first
//    printing token exactly as decode() applies it.
// One per sequence; cheap to create; O(1) work per token (no re-decoding of the history).
// A tokenizer with a decoder chain of its own (tokenizer.json) provides the stream itself
// (Tokenizer::open_text_stream); the rules above are the sentencepiece / byte-tokenizer ones.
#include <memory>
#include <string>

#include "engine/tokenizer/tokenizer.h"

namespace folio {

class StreamingDetokenizer {
public:
    // `tokenizer` must outlive this object. `continues_text`: the ids follow text that was already
    // printed (a sequence forked mid-generation), so the leading-space rule does not apply; the
    // output then equals decode(earlier ids + these ids) minus decode(earlier ids) whenever the
    // earlier ids end on a complete character.
    explicit StreamingDetokenizer(const Tokenizer& tokenizer, bool continues_text = false);

    // Throws folio::Error for an id outside the vocabulary.
    std::string push(int token);
    // The rest: held bytes of an unfinished character, as U+FFFD. Call once at the end.
    std::string finish();

    // True while bytes of an unfinished UTF-8 character (or, for a tokenizer with its own stream,
    // text its decoder has not decided yet) are held back.
    bool holding() const { return own_ ? own_->holding() : !pending_.empty(); }

private:
    const Tokenizer* tokenizer_;
    std::unique_ptr<TokenTextStream> own_;  // the tokenizer's own stream (tokenizer.json), when it has one
    LeadingSpaceRule rule_;
    std::string pending_;     // bytes of the current run of byte pieces not yet returned
    bool printed_ = false;    // decode() would already have non-empty text
    bool at_start_ = true;    // the leading-space rule still applies (sentencepiece's is_bos_ws)
    bool dropped_ = false;    // the last token had its leading space dropped (bos_ws_seen)
};

}  // namespace folio
