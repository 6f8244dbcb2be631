#include "engine/tokenizer/streaming_detokenizer.h"

#include "engine/tokenizer/utf8.h"

namespace folio {

StreamingDetokenizer::StreamingDetokenizer(const Tokenizer& tokenizer, bool continues_text)
    : tokenizer_(&tokenizer), own_(tokenizer.open_text_stream(continues_text)), rule_(tokenizer.leading_space_rule()),
      printed_(continues_text), at_start_(!continues_text) {}

std::string StreamingDetokenizer::push(int token) {
    if (own_) return own_->push(token);
    const TokenKind kind = tokenizer_->token_kind(token);
    std::string out;
    if (kind == TokenKind::Byte) {
        pending_ += tokenizer_->token_bytes(token);
        utf8::drain(pending_, out, /*final=*/false);
        printed_ = true;  // a byte always prints something: a character or U+FFFD
        return out;
    }
    // Any other token ends the run of byte pieces: what is still incomplete is invalid now.
    utf8::drain(pending_, out, /*final=*/true);

    // sentencepiece stops looking for the dummy-prefix space once text has been printed or one
    // space has been dropped; the check happens before each non-byte token.
    if (dropped_ || printed_) at_start_ = false;
    dropped_ = false;

    std::string text = tokenizer_->token_bytes(token);
    if (kind == TokenKind::Text && at_start_ && rule_ != LeadingSpaceRule::Keep && !text.empty() && text[0] == ' ') {
        text.erase(0, 1);
        dropped_ = rule_ == LeadingSpaceRule::DropFirst;
    }
    if (!text.empty()) printed_ = true;
    out += text;
    return out;
}

std::string StreamingDetokenizer::finish() {
    if (own_) return own_->finish();
    std::string out;
    utf8::drain(pending_, out, /*final=*/true);
    return out;
}

}  // namespace folio
