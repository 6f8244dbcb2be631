#include "engine/tokenizer/added_vocabulary.h"

#include <algorithm>

#include "engine/tokenizer/unicode_text.h"

namespace folio {
namespace {

// The last character of text[0, end): its start.
size_t last_char_start(std::string_view text, size_t end) {
    size_t i = end - 1;
    while (i > 0 && (uint8_t(text[i]) & 0xC0) == 0x80) --i;
    return i;
}

bool ends_with_word(std::string_view text, size_t end) {
    if (end == 0) return false;
    size_t len = 0;
    return unicode::is_word_char(unicode::decode_at(text, last_char_start(text, end), len));
}

bool starts_with_word(std::string_view text, size_t start) {
    if (start >= text.size()) return false;
    size_t len = 0;
    return unicode::is_word_char(unicode::decode_at(text, start, len));
}

// Where the white space that ends text[0, end) begins.
size_t trailing_space_start(std::string_view text, size_t end) {
    while (end > 0) {
        const size_t s = last_char_start(text, end);
        size_t len = 0;
        if (!unicode::is_white_space(unicode::decode_at(text, s, len))) break;
        end = s;
    }
    return end;
}

// Where the white space that starts text[start, ...) ends.
size_t leading_space_end(std::string_view text, size_t start) {
    while (start < text.size()) {
        size_t len = 0;
        if (!unicode::is_white_space(unicode::decode_at(text, start, len))) break;
        start += len;
    }
    return start;
}

}  // namespace

void AddedVocabulary::Trie::add(std::string_view s, int token) {
    if (nodes.empty()) nodes.emplace_back();
    int node = 0;
    for (char ch : s) {
        const auto b = static_cast<unsigned char>(ch);
        auto& kids = nodes[size_t(node)].children;
        auto it = std::lower_bound(kids.begin(), kids.end(), std::make_pair(b, -1));
        if (it != kids.end() && it->first == b) {
            node = it->second;
        } else {
            const int child = int(nodes.size());
            kids.insert(it, {b, child});
            nodes.emplace_back();
            node = child;
        }
    }
    // Two tokens with the same pattern: the first keeps it.
    if (nodes[size_t(node)].token < 0) nodes[size_t(node)].token = token;
    first_byte[static_cast<unsigned char>(s[0])] = true;
}

std::pair<int, size_t> AddedVocabulary::Trie::longest_at(std::string_view text, size_t pos) const {
    int node = 0, best = -1;
    size_t best_len = 0;
    for (size_t i = pos; i < text.size(); ++i) {
        const auto b = static_cast<unsigned char>(text[i]);
        const auto& kids = nodes[size_t(node)].children;
        auto it = std::lower_bound(kids.begin(), kids.end(), std::make_pair(b, -1));
        if (it == kids.end() || it->first != b) break;
        node = it->second;
        if (nodes[size_t(node)].token >= 0) {
            best = nodes[size_t(node)].token;
            best_len = i + 1 - pos;
        }
    }
    return {best, best_len};
}

AddedVocabulary::AddedVocabulary(std::vector<AddedTokenEntry> tokens, const std::vector<std::string>& normalized_content)
    : tokens_(std::move(tokens)) {
    for (size_t t = 0; t < tokens_.size(); ++t) {
        const AddedTokenEntry& e = tokens_[t];
        if (e.content.empty()) continue;  // the Rust library ignores empty added tokens
        if (!e.normalized) {
            raw_trie_.add(e.content, int(t));
        } else {
            const std::string& pattern = t < normalized_content.size() ? normalized_content[t] : e.content;
            if (!pattern.empty()) normalized_trie_.add(pattern, int(t));
        }
    }
}

void AddedVocabulary::split(std::string_view text, bool normalized_kind, bool skip_special,
                            std::vector<TextSpan>& out) const {
    out.clear();
    if (text.empty()) return;
    const Trie& trie = normalized_kind ? normalized_trie_ : raw_trie_;
    if (trie.nodes.empty()) {
        out.push_back({0, text.size(), -1});
        return;
    }
    size_t start_offset = 0;  // end of the last span emitted
    size_t pos = 0;           // where the search for the next match resumes
    while (pos < text.size()) {
        if (!trie.first_byte[static_cast<unsigned char>(text[pos])]) {
            ++pos;
            continue;
        }
        const auto [token, len] = trie.longest_at(text, pos);
        if (token < 0) {
            ++pos;
            continue;
        }
        size_t start = pos, stop = pos + len;
        pos = stop;  // matches never overlap, whatever happens to this one
        const AddedTokenEntry& e = tokens_[size_t(token)];
        if (skip_special && e.special) continue;
        if (e.single_word && (ends_with_word(text, start) || starts_with_word(text, stop))) continue;
        if (e.lstrip) start = std::max(trailing_space_start(text, start), start_offset);
        if (e.rstrip) stop = leading_space_end(text, stop);
        if (start_offset < start) out.push_back({start_offset, start, -1});
        out.push_back({start, stop, e.id});
        start_offset = stop;
    }
    if (start_offset < text.size()) out.push_back({start_offset, text.size(), -1});
}

}  // namespace folio
