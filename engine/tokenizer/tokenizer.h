#pragma once
// What the engine needs from a tokenizer. sentencepiece (tokenizer.model) implements it today; a
// byte-level BPE tokenizer.json (Llama-3, Qwen) will implement it later.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace folio {

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    // Text to ids, without BOS/EOS (callers add them per TokenizerConfig). Literal "<s>" in text is
    // plain text, never a control token.
    virtual std::vector<int> encode(std::string_view text) const = 0;

    // Ids to text exactly as the reference library decodes them (control tokens print nothing,
    // byte-fallback pieces become bytes, invalid UTF-8 becomes U+FFFD).
    virtual std::string decode(const std::vector<int>& ids) const = 0;

    // The raw bytes one token contributes in the middle of a text: '▁' as ' ', byte pieces as their
    // byte, control tokens as "". May be an incomplete UTF-8 sequence. For streaming.
    virtual std::string token_bytes(int id) const = 0;

    // True when decode() drops the single leading space of the first token (sentencepiece's
    // add_dummy_prefix); a streaming decoder does the same for the first token it emits.
    virtual bool strips_leading_space() const = 0;

    virtual std::string piece(int id) const = 0;  // the vocabulary entry itself, e.g. "▁Hello"
    virtual int piece_to_id(std::string_view piece) const = 0;  // -1 when unknown
    virtual int vocab_size() const = 0;
    virtual bool is_control(int id) const = 0;  // <s>, </s>, <unk>-like tokens that print nothing
    virtual int bos_id() const = 0;  // -1 when none
    virtual int eos_id() const = 0;  // -1 when none
    virtual std::string kind() const = 0;  // "sentencepiece", "bytes"
};

}  // namespace folio
