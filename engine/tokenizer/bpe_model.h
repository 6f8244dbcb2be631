#pragma once
// The BPE model of tokenizer.json ("model": {"type": "BPE", ...}) as the Hugging Face tokenizers
// library applies it to one pre-token: the characters become vocabulary ids (with the
// continuing_subword_prefix / end_of_word_suffix where set, byte_fallback pieces <0xAB> or the
// unknown token for characters outside the vocabulary), then the pair of adjacent symbols with the
// lowest merge rank is merged, leftmost first, until no pair has a merge. With ignore_merges a
// pre-token that is itself a vocabulary entry is that one token.
//
// Byte-level vocabularies (a ByteLevel pre-tokenizer) are keyed here by the raw bytes their
// entries stand for, so that pre-tokens need not be spelled in the byte alphabet to be looked up.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/tokenizer/flat_maps.h"
#include "engine/tokenizer/word_cache.h"

namespace folio {

struct BpeOptions {
    std::optional<std::string> unk_token;
    std::string continuing_subword_prefix;  // "" when absent
    std::string end_of_word_suffix;         // "" when absent
    bool fuse_unk = false;
    bool byte_fallback = false;
    bool ignore_merges = false;
    bool byte_level = false;  // pre-tokens arrive as raw bytes of a byte-level vocabulary
};

class BpeModel {
public:
    // Throws folio::Error (without a file name: the loader adds it) when a merge names a token that
    // is not in the vocabulary, or its result is not, or the unk_token is missing.
    // The views need to live only as long as the constructor runs.
    BpeModel(const std::vector<std::pair<std::string_view, int>>& vocab,
             const std::vector<std::pair<std::string_view, std::string_view>>& merges, BpeOptions options);

    // Appends the ids of one non-empty pre-token. `cache` may be null.
    void encode(std::string_view word, std::vector<int>& out, WordCache* cache) const;

    int token_to_id(std::string_view token) const { return vocab_.find(token); }  // -1 when absent
    // The vocabulary entry of `id`, nullptr when no entry has that id.
    const std::string* id_to_token(int id) const {
        return id >= 0 && size_t(id) < tokens_.size() && has_token_[size_t(id)] ? &tokens_[size_t(id)] : nullptr;
    }
    int id_bound() const { return int(tokens_.size()); }  // 1 + the largest id
    const BpeOptions& options() const { return options_; }

private:
    void initial_symbols(std::string_view word, std::vector<int>& syms) const;  // appends
    // Merge the n symbols at syms in place; return how many are left.
    size_t merge_small(int* syms, size_t n) const;
    size_t merge_large(int* syms, size_t n) const;
    int fallback_or_unk(std::string_view unit, std::vector<int>& syms, int& pending_unk) const;

    BpeOptions options_;
    StringIdMap vocab_;      // as spelled in tokenizer.json
    StringIdMap raw_vocab_;  // byte-level only: raw bytes -> id
    PairMap merges_;
    std::vector<std::string> tokens_;
    std::vector<bool> has_token_;
    int byte_ids_[256];      // byte-level only: the id of each single byte, -1 when absent
    int unk_id_ = -1;
};

}  // namespace folio
