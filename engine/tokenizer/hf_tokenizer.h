#pragma once
// A tokenizer.json tokenizer (Llama-3, Qwen2/2.5/3, Mistral-Nemo, and the Llama-2 / Mistral files
// converted from sentencepiece), encoding and decoding exactly as Hugging Face's tokenizers library
// and transformers' fast tokenizer do:
//   encode: added tokens are split out of the raw text; each piece between them is normalized, its
//           normalized added tokens split out, pre-tokenized, and BPE-encoded; with special tokens
//           the post-processor adds BOS/EOS.
//   decode: ids to token strings (special added tokens dropped unless kept), the decoder chain, and
//           clean_up_tokenization_spaces when tokenizer_config.json asks for it.
// Invalid UTF-8 in the text to encode is read with each maximal invalid subsequence as U+FFFD, as
// Hugging Face's bindings receive such text (a byte string decoded "with replacement").
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/tokenizer/added_vocabulary.h"
#include "engine/tokenizer/bpe_model.h"
#include "engine/tokenizer/decoders.h"
#include "engine/tokenizer/normalizers.h"
#include "engine/tokenizer/post_processor.h"
#include "engine/tokenizer/pre_tokenizers.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/word_cache.h"

namespace folio {

// Everything tokenizer.json and tokenizer_config.json define; built by load_tokenizer_json.
struct HfTokenizerParts {
    std::string source;  // the tokenizer.json path, for messages
    std::unique_ptr<Normalizer> normalizer;      // null: none
    std::unique_ptr<PreTokenizer> pre_tokenizer;  // null: the whole piece is one pre-token
    bool pieces_byte_mapped = false;  // pre-tokens arrive spelled in the byte-level alphabet
    std::unique_ptr<BpeModel> model;
    AddedVocabulary added;
    std::vector<std::string> added_normalized;  // per added token: its decoded form (normalized content)
    PostProcessor post_processor;
    bool has_decoder = false;  // no decoder: tokens are joined with spaces
    std::vector<std::unique_ptr<Decoder>> decoders;
    bool clean_up_tokenization_spaces = false;
    bool split_special_tokens = false;
    std::optional<std::string> bos_token, eos_token;  // from tokenizer_config.json
};

class HfTokenizer final : public Tokenizer {
public:
    explicit HfTokenizer(HfTokenizerParts parts);

    // tokenizer(text, add_special_tokens=False): added-token strings in the text are their tokens.
    std::vector<int> encode(std::string_view text) const override;
    std::vector<int> encode_without_dummy_prefix(std::string_view text) const override { return encode(text); }
    // tokenizer(text, add_special_tokens=True).
    std::vector<int> encode_with_special_tokens(std::string_view text) const override;
    bool owns_special_tokens() const override { return true; }

    // decode(ids, skip_special_tokens=True); decode_with_special_tokens: skip_special_tokens=False.
    std::string decode(const std::vector<int>& ids) const override;
    std::string decode_with_special_tokens(const std::vector<int>& ids) const override;
    std::unique_ptr<TokenTextStream> open_text_stream(bool continues_text) const override;

    std::string token_bytes(int id) const override;
    TokenKind token_kind(int id) const override;
    LeadingSpaceRule leading_space_rule() const override { return LeadingSpaceRule::Keep; }
    std::string piece(int id) const override;
    int piece_to_id(std::string_view piece) const override;
    int vocab_size() const override { return id_bound_; }
    bool is_control(int id) const override;
    int bos_id() const override { return bos_id_; }
    int eos_id() const override { return eos_id_; }
    int unk_id() const override { return unk_id_; }
    std::vector<int> special_token_ids() const override;
    std::string kind() const override { return "tokenizer.json"; }

    const std::string& source() const { return parts_.source; }

    // The token strings a decode starts from: added tokens (in their normalized form) or vocabulary
    // entries; with skip_special, special tokens are left out. Throws for an id outside the vocabulary.
    std::vector<std::string> token_strings(const std::vector<int>& ids, bool skip_special) const;
    // The decoder chain alone on token strings (no clean_up_tokenization_spaces).
    std::string decode_tokens(std::vector<std::string> tokens) const;

private:
    class TextStream;
    void encode_into(std::string_view text, std::vector<int>& out) const;
    void encode_piece(std::string_view text, bool at_start, std::vector<int>& out, WordCache* cache) const;
    void check_id(int id) const;
    std::string decode_ids(const std::vector<int>& ids, bool skip_special) const;

    HfTokenizerParts parts_;
    int id_bound_ = 0;
    int bos_id_ = -1, eos_id_ = -1, unk_id_ = -1;
    std::vector<int> added_index_;     // id -> index into the added tokens, -1 when not added
    std::vector<bool> skip_when_special_;  // id -> its string is a special token's content

    // Words seen by earlier calls. An encode takes it when no other thread holds it (and otherwise
    // runs without, or with a cache of its own for a long text).
    mutable std::mutex cache_mutex_;
    mutable WordCache cache_;
};

}  // namespace folio
