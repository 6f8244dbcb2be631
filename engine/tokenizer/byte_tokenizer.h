#pragma once
// The tokenizer of dummy models that are given no tokenizer.model. Its vocabulary is laid out like
// Llama's so that Llama-shaped dummy models mean something:
//   0 <unk>, 1 <s>, 2 </s>            control tokens that print nothing
//   3 .. 258  <0x00> .. <0xFF>        byte pieces: encode() is the UTF-8 bytes of the text
//   259 .. vocab_size-1  <unused_N>   control tokens that print nothing (a dummy model samples them
//                                     as often as any other id; printing nothing keeps its text
//                                     made of real bytes only)
// Bytes decode like sentencepiece's byte fallback: consecutive byte tokens form UTF-8 characters,
// every byte that cannot begin a valid character becomes U+FFFD. No leading-space rule.
#include "engine/tokenizer/tokenizer.h"

namespace folio {

class ByteTokenizer final : public Tokenizer {
public:
    static constexpr int kUnk = 0, kBos = 1, kEos = 2, kFirstByte = 3, kMinVocab = 259;

    // Throws folio::Error when vocab_size < 259.
    explicit ByteTokenizer(int vocab_size);

    std::vector<int> encode(std::string_view text) const override;
    std::vector<int> encode_without_dummy_prefix(std::string_view text) const override { return encode(text); }
    std::string decode(const std::vector<int>& ids) const override;
    std::string token_bytes(int id) const override;
    TokenKind token_kind(int id) const override;
    LeadingSpaceRule leading_space_rule() const override { return LeadingSpaceRule::Keep; }
    std::string piece(int id) const override;
    int piece_to_id(std::string_view piece) const override;
    int vocab_size() const override { return vocab_size_; }
    bool is_control(int id) const override;
    int bos_id() const override { return kBos; }
    int eos_id() const override { return kEos; }
    int unk_id() const override { return kUnk; }
    std::vector<int> special_token_ids() const override { return {kUnk, kBos, kEos}; }
    std::string kind() const override { return "bytes"; }

private:
    void check_id(int id) const;
    int vocab_size_;
};

}  // namespace folio
