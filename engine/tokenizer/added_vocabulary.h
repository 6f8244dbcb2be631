#pragma once
// tokenizer.json's "added_tokens": strings that stand for one token wherever they appear, found in
// the text before normalization and BPE (the non-normalized ones in the raw text, the normalized ones
// in the normalized text), as the Hugging Face tokenizers library's AddedVocabulary does: at each
// position the longest token wins, the leftmost position first; single_word tokens only count between
// non-word characters; lstrip / rstrip tokens take the white space beside them.
#include <string>
#include <string_view>
#include <vector>

namespace folio {

struct AddedTokenEntry {
    int id = -1;
    std::string content;
    bool single_word = false;
    bool lstrip = false;
    bool rstrip = false;
    bool normalized = true;
    bool special = false;
};

// A piece of text: [start, end) and the added token it is, or -1 for plain text.
struct TextSpan {
    size_t start = 0, end = 0;
    int id = -1;
};

class AddedVocabulary {
public:
    AddedVocabulary() = default;
    // `normalized_content`: for each token, the pattern to look for in normalized text (its content
    // after the normalizer; ignored for tokens with normalized = false).
    AddedVocabulary(std::vector<AddedTokenEntry> tokens, const std::vector<std::string>& normalized_content);

    // The spans of `text`: the added tokens of one kind (normalized or not) and the plain text
    // between them. With `skip_special`, special tokens are not recognized (split_special_tokens).
    void split(std::string_view text, bool normalized_kind, bool skip_special, std::vector<TextSpan>& out) const;

    bool has_normalized_tokens() const { return !normalized_trie_.nodes.empty(); }
    const std::vector<AddedTokenEntry>& tokens() const { return tokens_; }

private:
    // A byte trie; children sorted by byte. Node 0 is the root.
    struct Trie {
        struct Node {
            std::vector<std::pair<unsigned char, int>> children;
            int token = -1;  // index into tokens_
        };
        std::vector<Node> nodes;
        bool first_byte[256] = {};
        void add(std::string_view s, int token);
        // The longest token at text[pos], as (token index, length); token -1 when none.
        std::pair<int, size_t> longest_at(std::string_view text, size_t pos) const;
    };

    std::vector<AddedTokenEntry> tokens_;
    Trie raw_trie_, normalized_trie_;
};

}  // namespace folio
