#include "engine/tokenizer/prompt_encoding.h"

#include <algorithm>
#include <map>

namespace folio {
namespace {

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";  // '▁'

struct SpecialString {
    std::string text;
    int id = -1;
    bool lstrip = false, rstrip = false;
};

// One piece of a rendered template: plain text, or a special token.
struct Segment {
    std::string text;
    const SpecialString* special = nullptr;
};

int named_token_id(const Tokenizer& tok, const TokenizerConfig& cfg, const std::string& name, int fallback) {
    if (name.empty()) return -1;  // null in the config: the model has no such token
    for (const auto& t : cfg.added_tokens)
        if (t.content == name && t.id >= 0 && t.id < tok.vocab_size()) return t.id;
    const int id = tok.piece_to_id(name);
    return id >= 0 ? id : fallback;
}

std::vector<SpecialString> special_strings(const Tokenizer& tok, const TokenizerConfig& cfg) {
    std::map<std::string, SpecialString> by_text;
    auto add = [&](const std::string& text, int id) {
        if (text.empty() || id < 0 || id >= tok.vocab_size()) return;
        by_text.emplace(text, SpecialString{text, id});
    };
    for (const auto& t : cfg.added_tokens) {  // first: they carry lstrip/rstrip
        if (t.content.empty() || t.id < 0 || t.id >= tok.vocab_size()) continue;
        by_text[t.content] = SpecialString{t.content, t.id, t.lstrip, t.rstrip};
    }
    for (int id : tok.special_token_ids()) add(tok.piece(id), id);
    add(cfg.bos_token, tok.piece_to_id(cfg.bos_token));
    add(cfg.eos_token, tok.piece_to_id(cfg.eos_token));
    add(cfg.unk_token, tok.piece_to_id(cfg.unk_token));
    std::vector<SpecialString> out;
    for (auto& [text, s] : by_text) out.push_back(std::move(s));
    // Longest first, so that the first match at a position is the longest (as transformers' trie).
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.text.size() > b.text.size(); });
    return out;
}

std::vector<Segment> split_on_specials(std::string_view text, const std::vector<SpecialString>& specials) {
    std::vector<Segment> segs;
    std::string plain;
    for (size_t i = 0; i < text.size();) {
        const SpecialString* hit = nullptr;
        for (const auto& s : specials) {
            if (text.compare(i, s.text.size(), s.text) == 0) {
                hit = &s;
                break;
            }
        }
        if (!hit) {
            plain.push_back(text[i++]);
            continue;
        }
        if (!plain.empty()) segs.push_back({std::move(plain), nullptr});
        plain.clear();
        segs.push_back({hit->text, hit});
        i += hit->text.size();
    }
    if (!plain.empty()) segs.push_back({std::move(plain), nullptr});
    return segs;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// transformers' AddedToken lstrip/rstrip: the token swallows the whitespace beside it.
void strip_around_specials(std::vector<Segment>& segs) {
    for (size_t i = 0; i < segs.size(); ++i) {
        if (!segs[i].special) continue;
        if (segs[i].special->rstrip && i + 1 < segs.size() && !segs[i + 1].special) {
            std::string& t = segs[i + 1].text;
            size_t k = 0;
            while (k < t.size() && is_space(t[k])) ++k;
            t.erase(0, k);
        }
        if (segs[i].special->lstrip && i > 0 && !segs[i - 1].special) {
            std::string& t = segs[i - 1].text;
            while (!t.empty() && is_space(t.back())) t.pop_back();
        }
    }
}

std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
    std::string out;
    out.reserve(s.size());
    size_t start = 0;
    for (size_t pos = s.find(from); pos != std::string_view::npos; pos = s.find(from, start)) {
        out.append(s.substr(start, pos - start)).append(to);
        start = pos + from.size();
    }
    out.append(s.substr(start));
    return out;
}

// LlamaTokenizer._tokenize with legacy=false: no dummy prefix; text that starts with a space is
// encoded behind the unknown token, which is then dropped, so that sentencepiece cannot treat the
// space as removable leading whitespace.
std::vector<int> encode_non_legacy(const Tokenizer& tok, const TokenizerConfig& cfg, const std::string& text) {
    const bool leading_space = text.rfind(kSpaceSymbol, 0) == 0 || (!text.empty() && text[0] == ' ');
    if (!leading_space || cfg.unk_token.empty()) return tok.encode_without_dummy_prefix(text);
    const size_t unk_len = tok.encode_without_dummy_prefix(cfg.unk_token).size();
    std::vector<int> ids = tok.encode_without_dummy_prefix(cfg.unk_token + text);
    ids.erase(ids.begin(), ids.begin() + std::min(unk_len, ids.size()));
    return ids;
}

std::vector<int32_t> encode_segments(const Tokenizer& tok, const TokenizerConfig& cfg, std::string_view text,
                                     const std::vector<SpecialString>& specials) {
    std::string prepared(text);
    if (!cfg.legacy) {
        prepared = replace_all(prepared, kSpaceSymbol, " ");
        if (cfg.add_prefix_space) prepared.insert(0, kSpaceSymbol);
    }
    std::vector<Segment> segs = split_on_specials(prepared, specials);
    strip_around_specials(segs);

    std::vector<int32_t> ids;
    for (const auto& seg : segs) {
        if (seg.special) {
            ids.push_back(seg.special->id);
        } else if (!seg.text.empty()) {
            const std::vector<int> part = cfg.legacy ? tok.encode(seg.text) : encode_non_legacy(tok, cfg, seg.text);
            ids.insert(ids.end(), part.begin(), part.end());
        }
    }
    // legacy=false: the '▁' added in front of a text that starts with a special token is dropped.
    if (!cfg.legacy && ids.size() > 1 && tok.piece(ids[0]) == kSpaceSymbol &&
        std::any_of(specials.begin(), specials.end(), [&](const SpecialString& s) { return s.id == ids[1]; }))
        ids.erase(ids.begin());
    return ids;
}

}  // namespace

int bos_token_id(const Tokenizer& tok, const TokenizerConfig& cfg) {
    return named_token_id(tok, cfg, cfg.bos_token, tok.bos_id());
}

int eos_token_id(const Tokenizer& tok, const TokenizerConfig& cfg) {
    return named_token_id(tok, cfg, cfg.eos_token, tok.eos_id());
}

std::vector<int32_t> encode_prompt(const Tokenizer& tok, const TokenizerConfig& cfg, std::string_view text,
                                   bool add_special) {
    if (tok.owns_special_tokens()) return add_special ? tok.encode_with_special_tokens(text) : tok.encode(text);
    std::vector<int32_t> ids = encode_segments(tok, cfg, text, {});
    if (add_special) {
        const int bos = bos_token_id(tok, cfg), eos = eos_token_id(tok, cfg);
        if (cfg.add_bos_token && bos >= 0) ids.insert(ids.begin(), bos);
        if (cfg.add_eos_token && eos >= 0) ids.push_back(eos);
    }
    return ids;
}

std::vector<int32_t> encode_rendered_chat(const Tokenizer& tok, const TokenizerConfig& cfg, std::string_view rendered) {
    // transformers' apply_chat_template tokenizes with add_special_tokens=False: the template
    // writes BOS itself.
    if (tok.owns_special_tokens()) return tok.encode(rendered);
    std::vector<int32_t> ids = encode_segments(tok, cfg, rendered, special_strings(tok, cfg));
    const int bos = bos_token_id(tok, cfg);
    if (cfg.add_bos_token && bos >= 0 && (ids.empty() || ids.front() != bos)) ids.insert(ids.begin(), bos);
    return ids;
}

}  // namespace folio
