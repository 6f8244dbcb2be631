#include "engine/tokenizer/bpe_model.h"

#include <algorithm>
#include <queue>

#include "engine/core/error.h"
#include "engine/tokenizer/byte_level_alphabet.h"
#include "engine/tokenizer/unicode_text.h"

namespace folio {
namespace {

// Words up to this many symbols merge by scanning for the best pair (quadratic, but faster than a
// heap up to a few hundred symbols: a run of CJK letters is one pre-token); longer
// ones (a whole sentencepiece-style text is one word) through a heap.
constexpr size_t kSmallWord = 256;

std::string byte_piece(uint8_t b) {  // "<0xAB>", as the Rust library spells it
    static constexpr char kHex[] = "0123456789ABCDEF";
    return std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">";
}

}  // namespace

BpeModel::BpeModel(const std::vector<std::pair<std::string_view, int>>& vocab,
                   const std::vector<std::pair<std::string_view, std::string_view>>& merges, BpeOptions options)
    : options_(std::move(options)) {
    if (options_.byte_level && (!options_.continuing_subword_prefix.empty() || !options_.end_of_word_suffix.empty()))
        throw Error("continuing_subword_prefix / end_of_word_suffix together with a ByteLevel pre-tokenizer is not "
                    "supported");
    vocab_.reserve(vocab.size());
    int bound = 0;
    for (const auto& [token, id] : vocab) {
        if (id < 0) throw Error("vocabulary entry \"" + std::string(token) + "\" has a negative id " + std::to_string(id));
        vocab_.insert(token, id);
        bound = std::max(bound, id + 1);
    }
    tokens_.assign(size_t(bound), std::string());
    has_token_.assign(size_t(bound), false);
    for (const auto& [token, id] : vocab) {
        tokens_[size_t(id)] = token;
        has_token_[size_t(id)] = true;
    }
    std::fill(std::begin(byte_ids_), std::end(byte_ids_), -1);
    if (options_.byte_level) {
        raw_vocab_.reserve(vocab.size());
        std::string raw;
        for (const auto& [token, id] : vocab)
            if (byte_level::unmap(token, raw)) raw_vocab_.insert(raw, vocab_.find(token));
        for (int b = 0; b < 256; ++b) byte_ids_[b] = vocab_.find(byte_level::utf8_of_bytes()[size_t(b)]);
    }
    if (options_.unk_token) unk_id_ = vocab_.find(*options_.unk_token);

    // A merge joins a and b without b's continuing_subword_prefix.
    const size_t prefix_len = options_.continuing_subword_prefix.size();
    merges_.reserve(merges.size());
    std::string joined;
    for (size_t rank = 0; rank < merges.size(); ++rank) {
        // Named references, not a structured binding: clang-14 (the fuzz build) cannot capture one.
        const auto& a = merges[rank].first;
        const auto& b = merges[rank].second;
        const int a_id = vocab_.find(a), b_id = vocab_.find(b);
        auto pair = [&, rank] {
            return "merge " + std::to_string(rank) + " (\"" + std::string(a) + "\" \"" + std::string(b) + "\")";
        };
        if (a_id < 0 || b_id < 0)
            throw Error(pair() + " names \"" + std::string(a_id < 0 ? a : b) + "\", which is not in the vocabulary");
        joined.assign(a);
        joined.append(b.size() >= prefix_len ? b.substr(prefix_len) : std::string_view());
        const int new_id = vocab_.find(joined);
        if (new_id < 0) throw Error(pair() + " makes \"" + joined + "\", which is not in the vocabulary");
        merges_.insert(uint32_t(a_id), uint32_t(b_id), MergeRule{uint32_t(rank), new_id});
    }
}

// The Rust library's fallback for a unit outside the vocabulary: its bytes as <0xAB> pieces when
// byte_fallback has them all, else the unknown token (fused with a pending one when fuse_unk), else
// nothing. Returns 1 when byte pieces were added.
int BpeModel::fallback_or_unk(std::string_view unit, std::vector<int>& syms, int& pending_unk) const {
    if (options_.byte_fallback) {
        int ids[8];
        size_t n = 0;
        bool all = unit.size() <= 8;
        for (size_t k = 0; all && k < unit.size(); ++k) {
            ids[n] = vocab_.find(byte_piece(uint8_t(unit[k])));
            all = ids[n++] >= 0;
        }
        if (all) {
            // A pending unknown token stays pending here, as in the Rust library.
            syms.insert(syms.end(), ids, ids + n);
            return 1;
        }
    }
    if (options_.unk_token) {
        if (unk_id_ < 0)
            throw Error("the text has a character outside the vocabulary and the unk_token \"" + *options_.unk_token +
                        "\" is not in the vocabulary");
        if (pending_unk >= 0 && !options_.fuse_unk) syms.push_back(pending_unk);
        pending_unk = unk_id_;
    }
    return 0;
}

void BpeModel::initial_symbols(std::string_view word, std::vector<int>& syms) const {
    int pending_unk = -1;
    auto known = [&](int id) {
        if (pending_unk >= 0) syms.push_back(pending_unk);
        pending_unk = -1;
        syms.push_back(id);
    };
    if (options_.byte_level) {
        for (char c : word) {
            const int id = byte_ids_[uint8_t(c)];
            if (id >= 0) known(id);
            else fallback_or_unk(byte_level::utf8_of_bytes()[uint8_t(c)], syms, pending_unk);
        }
    } else {
        const std::string& prefix = options_.continuing_subword_prefix;
        const std::string& suffix = options_.end_of_word_suffix;
        std::string unit;
        for (size_t i = 0; i < word.size();) {
            const size_t len = std::min(unicode::sequence_length(uint8_t(word[i])), word.size() - i);
            const bool first = i == 0, last = i + len == word.size();
            std::string_view s = word.substr(i, len);
            if ((!first && !prefix.empty()) || (last && !suffix.empty())) {
                unit.clear();
                if (!first) unit.append(prefix);
                unit.append(s);
                if (last) unit.append(suffix);
                s = unit;
            }
            const int id = vocab_.find(s);
            if (id >= 0) known(id);
            else fallback_or_unk(s, syms, pending_unk);
            i += len;
        }
    }
    if (pending_unk >= 0) syms.push_back(pending_unk);
}

size_t BpeModel::merge_small(int* syms, size_t n) const {
    // Positions stay where they are; a merged-away symbol leaves the linked list. Each pair's key is
    // rank * 256 + position, so the smallest key is the lowest rank, leftmost first, and finding it is
    // a plain min over an int32 array, which the compiler vectorizes even for baseline x86-64.
    constexpr int32_t kNone = INT32_MAX;
    static_assert(kSmallWord <= 256);
    int32_t keys[kSmallWord];
    int new_ids[kSmallWord];
    uint16_t next[kSmallWord], prev[kSmallWord];
    const auto end = uint16_t(n);
    auto set = [&](size_t pos) {
        const MergeRule* r = next[pos] == end ? nullptr : merges_.find(uint32_t(syms[pos]), uint32_t(syms[next[pos]]));
        keys[pos] = r ? int32_t(r->rank * 256 + pos) : kNone;
        new_ids[pos] = r ? r->new_id : -1;
    };
    for (size_t i = 0; i < n; ++i) {
        next[i] = uint16_t(i + 1);
        prev[i] = i == 0 ? end : uint16_t(i - 1);
    }
    for (size_t i = 0; i < n; ++i) set(i);
    for (;;) {
        int32_t best = kNone;
        for (size_t i = 0; i < n; ++i) best = keys[i] < best ? keys[i] : best;
        if (best == kNone) break;
        const size_t pos = size_t(best) & 255, right = next[pos];
        syms[pos] = new_ids[pos];
        keys[right] = kNone;
        next[pos] = next[right];
        if (next[right] != end) prev[next[right]] = uint16_t(pos);
        set(pos);
        if (prev[pos] != end) set(prev[pos]);
    }
    size_t w = 0;
    for (size_t i = 0; i != end; i = next[i]) syms[w++] = syms[i];
    return w;
}

size_t BpeModel::merge_large(int* syms, size_t n) const {
    std::vector<int> prev(n), next(n);
    for (size_t i = 0; i < n; ++i) {
        prev[i] = int(i) - 1;
        next[i] = i + 1 < n ? int(i + 1) : -1;
    }
    struct Candidate {
        uint32_t rank;
        uint32_t pos;
        int new_id;
        bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
    auto push = [&](size_t left) {
        const int right = next[left];
        if (right < 0) return;
        if (const MergeRule* r = merges_.find(uint32_t(syms[left]), uint32_t(syms[size_t(right)])))
            queue.push(Candidate{r->rank, uint32_t(left), r->new_id});
    };
    for (size_t i = 0; i + 1 < n; ++i) push(i);
    std::vector<bool> gone(n, false);
    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        const size_t pos = top.pos;
        if (gone[pos] || next[pos] < 0) continue;
        const size_t right = size_t(next[pos]);
        // A stale entry: the pair at pos changed since it was queued.
        const MergeRule* now = merges_.find(uint32_t(syms[pos]), uint32_t(syms[right]));
        if (!now || now->new_id != top.new_id) continue;
        syms[pos] = top.new_id;
        gone[right] = true;
        next[pos] = next[right];
        if (next[right] >= 0) prev[size_t(next[right])] = int(pos);
        if (prev[pos] >= 0) push(size_t(prev[pos]));
        push(pos);
    }
    size_t w = 0;
    for (size_t i = 0; i < n; ++i)
        if (!gone[i]) syms[w++] = syms[i];
    return w;
}

void BpeModel::encode(std::string_view word, std::vector<int>& out, WordCache* cache) const {
    if (word.empty()) return;
    if (options_.ignore_merges) {
        const int id = options_.byte_level ? raw_vocab_.find(word) : vocab_.find(word);
        if (id >= 0) {
            out.push_back(id);
            return;
        }
    }
    if (cache && cache->find(word, out)) return;
    // The symbols are built at the end of `out` and merged in place there.
    const size_t start = out.size();
    initial_symbols(word, out);
    const size_t n = out.size() - start;
    // The scan's keys hold rank * 256 in an int32: files with more merges than that take the heap.
    const bool small = n <= kSmallWord && merges_.size() < (size_t(1) << 23);
    const size_t merged = small ? merge_small(out.data() + start, n) : merge_large(out.data() + start, n);
    out.resize(start + merged);
    if (cache) cache->insert(word, out.data() + start, merged);
}

}  // namespace folio
