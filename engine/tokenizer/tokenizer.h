#pragma once
// What the engine needs from a tokenizer. sentencepiece (tokenizer.model) and tokenizer.json
// (HfTokenizer: Llama-3, Qwen, ...) implement it; dummy models use the byte tokenizer.
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

// Token-by-token text of one sequence, for tokenizers whose decoding is not the per-token rule of
// TokenKind (tokenizer.json's decoder chain). The concatenation of every push() and finish() equals
// decode(all ids); no push() returns part of a UTF-8 character.
class TokenTextStream {
public:
    virtual ~TokenTextStream() = default;
    virtual std::string push(int id) = 0;  // throws folio::Error for an id outside the vocabulary
    virtual std::string finish() = 0;
    virtual bool holding() const = 0;  // text is held back until later tokens decide it
};

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    // Text to ids, without BOS/EOS (callers add them per TokenizerConfig). sentencepiece: literal
    // "<s>" in text is plain text, never a control token. tokenizer.json: the strings of its added
    // tokens are those tokens, as Hugging Face's tokenizer(text, add_special_tokens=False).
    virtual std::vector<int> encode(std::string_view text) const = 0;

    // True for tokenizers that define their own added tokens and post-processor (tokenizer.json):
    // callers then use encode() / encode_with_special_tokens() as they are instead of adding BOS/EOS
    // by TokenizerConfig's rules.
    virtual bool owns_special_tokens() const { return false; }
    // Hugging Face's tokenizer(text, add_special_tokens=True): encode() plus what the
    // post-processor adds. Tokenizers that do not own their special tokens return encode().
    virtual std::vector<int> encode_with_special_tokens(std::string_view text) const { return encode(text); }

    // Like encode() but without sentencepiece's dummy prefix '▁' (transformers' legacy=false encodes
    // the text after a special token this way). Tokenizers without a dummy prefix: same as encode().
    virtual std::vector<int> encode_without_dummy_prefix(std::string_view text) const = 0;

    // Ids to text exactly as the reference library decodes them (control tokens print nothing,
    // byte-fallback pieces become bytes, invalid UTF-8 becomes U+FFFD). Throws folio::Error for an id
    // outside [0, vocab_size()).
    virtual std::string decode(const std::vector<int>& ids) const = 0;
    // Like decode(), but special tokens print their text (Hugging Face's skip_special_tokens=False).
    // sentencepiece prints control tokens as nothing either way (the library's decode).
    virtual std::string decode_with_special_tokens(const std::vector<int>& ids) const { return decode(ids); }
    // The tokenizer's own streaming decoder, or nullptr when the TokenKind rules below describe
    // decoding (StreamingDetokenizer then applies them). `continues_text` as in StreamingDetokenizer.
    virtual std::unique_ptr<TokenTextStream> open_text_stream(bool /*continues_text*/) const { return nullptr; }

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
    virtual std::string kind() const = 0;  // "sentencepiece", "bytes", "tokenizer.json"
};

}  // namespace folio
