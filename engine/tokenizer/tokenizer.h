#pragma once
// What the engine needs from a tokenizer. sentencepiece (tokenizer.model) implements it today; a
// byte-level BPE tokenizer.json (Llama-3, Qwen) will implement it later.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace folio {

// How decode() treats one token; the streaming detokenizer follows the same rules token by token.
enum class TokenKind {
    Text,     // a vocabulary piece: its text, '▁' as ' '
    Byte,     // a byte-fallback piece <0xAB>: consecutive ones form UTF-8 characters together, and
              // every byte that cannot begin a valid character becomes U+FFFD
    Control,  // <s>, </s> and the like: prints nothing (and ends a run of byte pieces)
    Unknown,  // <unk>: prints the model's unknown surface (" ⁇ " for sentencepiece)
};

// What decode() does with the space at the very start of the text (sentencepiece's dummy prefix).
enum class LeadingSpaceRule {
    Keep,            // nothing is dropped
    DropFirst,       // add_dummy_prefix: the leading ' ' of the first printing Text token is dropped
    DropWhileEmpty,  // remove_extra_whitespaces: every Text token's leading ' ' is dropped while the
                     // text is still empty
};

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    // Text to ids, without BOS/EOS (callers add them per TokenizerConfig). Literal "<s>" in text is
    // plain text, never a control token.
    virtual std::vector<int> encode(std::string_view text) const = 0;

    // Like encode() but without sentencepiece's dummy prefix '▁' (transformers' legacy=false encodes
    // the text after a special token this way). Tokenizers without a dummy prefix: same as encode().
    virtual std::vector<int> encode_without_dummy_prefix(std::string_view text) const = 0;

    // Ids to text exactly as the reference library decodes them (control tokens print nothing,
    // byte-fallback pieces become bytes, invalid UTF-8 becomes U+FFFD). Throws folio::Error for an id
    // outside [0, vocab_size()).
    virtual std::string decode(const std::vector<int>& ids) const = 0;

    // The raw bytes one token contributes in the middle of a text: '▁' as ' ', byte pieces as their
    // byte, control tokens as "", <unk> as its surface. May be an incomplete UTF-8 sequence. For
    // streaming. Throws folio::Error for an id outside [0, vocab_size()).
    virtual std::string token_bytes(int id) const = 0;
    virtual TokenKind token_kind(int id) const = 0;  // throws like token_bytes

    virtual LeadingSpaceRule leading_space_rule() const = 0;
    // True when decode() drops the single leading space of the first token (sentencepiece's
    // add_dummy_prefix); a streaming decoder does the same for the first token it emits.
    bool strips_leading_space() const { return leading_space_rule() != LeadingSpaceRule::Keep; }

    virtual std::string piece(int id) const = 0;  // the vocabulary entry itself, e.g. "▁Hello"
    virtual int piece_to_id(std::string_view piece) const = 0;  // -1 when unknown
    virtual int vocab_size() const = 0;
    virtual bool is_control(int id) const = 0;  // <s>, </s>, <unk>-like tokens that print nothing
    virtual int bos_id() const = 0;  // -1 when none
    virtual int eos_id() const = 0;  // -1 when none
    virtual int unk_id() const = 0;  // -1 when none
    // Tokens whose literal text in a rendered chat template stands for the token itself: control,
    // unknown and user-defined pieces (e.g. "<s>", "</s>", "<unk>", "<|im_start|>").
    virtual std::vector<int> special_token_ids() const = 0;
    virtual std::string kind() const = 0;  // "sentencepiece", "bytes"
};

}  // namespace folio
