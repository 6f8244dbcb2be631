#pragma once
// The sentencepiece tokenizer.model of Llama-2, Mistral and their kin, through the system
// libsentencepiece. Encoding and decoding are the library's own; the per-token tables the streaming
// detokenizer needs are built once at load.
#include <memory>
#include <string>

#include "engine/tokenizer/tokenizer.h"

namespace folio {

class SentencePieceTokenizer final : public Tokenizer {
public:
    // Throws folio::Error naming `model_file` when it is missing or not a sentencepiece model.
    static std::shared_ptr<const SentencePieceTokenizer> load(const std::string& model_file);
    // The same from the file's bytes; `name` stands for the file in messages (and path()).
    static std::shared_ptr<const SentencePieceTokenizer> load_serialized(std::string serialized, const std::string& name);
    ~SentencePieceTokenizer() override;

    std::vector<int> encode(std::string_view text) const override;
    std::vector<int> encode_without_dummy_prefix(std::string_view text) const override;
    std::string decode(const std::vector<int>& ids) const override;
    std::string token_bytes(int id) const override;
    TokenKind token_kind(int id) const override;
    LeadingSpaceRule leading_space_rule() const override;
    std::string piece(int id) const override;
    int piece_to_id(std::string_view piece) const override;
    int vocab_size() const override;
    bool is_control(int id) const override;
    int bos_id() const override;
    int eos_id() const override;
    int unk_id() const override;
    std::vector<int> special_token_ids() const override;
    std::string kind() const override { return "sentencepiece"; }

    const std::string& path() const;

private:
    struct Impl;
    explicit SentencePieceTokenizer(std::unique_ptr<Impl> impl);
    void check_id(int id) const;
    std::unique_ptr<Impl> impl_;
};

}  // namespace folio
