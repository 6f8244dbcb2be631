#include "engine/tokenizer/hf_tokenizer.h"

#include <algorithm>
#include <unordered_set>

#include "engine/core/error.h"
#include "engine/tokenizer/byte_level_alphabet.h"
#include "engine/tokenizer/decoder_stages.h"
#include "engine/tokenizer/unicode_text.h"

namespace folio {
namespace {

// Texts longer than this get a word cache of their own when the shared one is busy.
constexpr size_t kLocalCacheMinBytes = 16 * 1024;

// The model's end of the pre-tokenizer chain: each pre-token to ids.
class ModelSink final : public PieceSink {
public:
    ModelSink(const BpeModel& model, bool byte_mapped, std::vector<int>& out, WordCache* cache)
        : model_(model), byte_mapped_(byte_mapped), out_(out), cache_(cache) {}
    void piece(std::string_view text, bool) override {
        if (byte_mapped_) {
            // A ByteLevel before other pre-tokenizers spelled the text in its alphabet; the model
            // takes raw bytes.
            if (!byte_level::unmap(text, raw_))
                throw Error("a pre-tokenizer after ByteLevel produced a character outside the byte-level alphabet");
            model_.encode(raw_, out_, cache_);
        } else {
            model_.encode(text, out_, cache_);
        }
    }

private:
    const BpeModel& model_;
    bool byte_mapped_;
    std::vector<int>& out_;
    WordCache* cache_;
    std::string raw_;
};

}  // namespace

HfTokenizer::HfTokenizer(HfTokenizerParts parts) : parts_(std::move(parts)) {
    id_bound_ = parts_.model->id_bound();
    const auto& added = parts_.added.tokens();
    for (const auto& t : added) id_bound_ = std::max(id_bound_, t.id + 1);
    added_index_.assign(size_t(id_bound_), -1);
    for (size_t i = 0; i < added.size(); ++i) added_index_[size_t(added[i].id)] = int(i);

    // Hugging Face skips a token when skipping special tokens if its string is a special token's
    // content (whatever its id).
    std::unordered_set<std::string> special;
    for (const auto& t : added)
        if (t.special) special.insert(t.content);
    skip_when_special_.assign(size_t(id_bound_), false);
    for (int id = 0; id < id_bound_; ++id) {
        const int a = added_index_[size_t(id)];
        const std::string* s = a >= 0 ? &parts_.added_normalized[size_t(a)] : parts_.model->id_to_token(id);
        skip_when_special_[size_t(id)] = s && special.count(*s) > 0;
    }
    if (parts_.bos_token) bos_id_ = piece_to_id(*parts_.bos_token);
    if (parts_.eos_token) eos_id_ = piece_to_id(*parts_.eos_token);
    if (parts_.model->options().unk_token) unk_id_ = piece_to_id(*parts_.model->options().unk_token);
}

void HfTokenizer::encode_piece(std::string_view text, bool at_start, std::vector<int>& out, WordCache* cache) const {
    if (text.empty()) return;
    ModelSink sink(*parts_.model, parts_.pieces_byte_mapped, out, cache);
    if (parts_.pre_tokenizer) parts_.pre_tokenizer->split(text, at_start, sink);
    else sink.piece(text, at_start);
}

void HfTokenizer::encode_into(std::string_view text, std::vector<int>& out) const {
    std::string repaired;
    if (unicode::first_invalid_byte(text) != text.size()) {
        repaired = unicode::to_valid_utf8(text);
        text = repaired;
    }
    std::unique_lock<std::mutex> lock(cache_mutex_, std::try_to_lock);
    std::optional<WordCache> own;
    WordCache* cache = nullptr;
    if (lock.owns_lock()) {
        cache = &cache_;
    } else if (text.size() >= kLocalCacheMinBytes) {
        own.emplace();
        cache = &*own;
    }

    std::vector<TextSpan> spans, inner;
    parts_.added.split(text, /*normalized_kind=*/false, parts_.split_special_tokens, spans);
    std::string normalized;
    for (const TextSpan& span : spans) {
        if (span.id >= 0) {
            out.push_back(span.id);
            continue;
        }
        std::string_view piece = text.substr(span.start, span.end - span.start);
        const bool at_start = span.start == 0;
        if (parts_.normalizer) {
            normalized.assign(piece);
            parts_.normalizer->normalize(normalized);
            piece = normalized;
        }
        if (!parts_.added.has_normalized_tokens()) {
            encode_piece(piece, at_start, out, cache);
            continue;
        }
        parts_.added.split(piece, /*normalized_kind=*/true, parts_.split_special_tokens, inner);
        for (const TextSpan& s : inner) {
            if (s.id >= 0) out.push_back(s.id);
            else encode_piece(piece.substr(s.start, s.end - s.start), at_start && s.start == 0, out, cache);
        }
    }
}

std::vector<int> HfTokenizer::encode(std::string_view text) const {
    std::vector<int> ids;
    ids.reserve(text.size() / 3 + 4);
    encode_into(text, ids);
    return ids;
}

std::vector<int> HfTokenizer::encode_with_special_tokens(std::string_view text) const {
    std::vector<int> ids = encode(text);
    parts_.post_processor.apply(ids);
    return ids;
}

void HfTokenizer::check_id(int id) const {
    if (id < 0 || id >= id_bound_)
        throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " + parts_.source + " (ids 0.." +
                    std::to_string(id_bound_ - 1) + ")");
}

std::vector<std::string> HfTokenizer::token_strings(const std::vector<int>& ids, bool skip_special) const {
    std::vector<std::string> tokens;
    tokens.reserve(ids.size());
    for (int id : ids) {
        check_id(id);
        if (skip_special && skip_when_special_[size_t(id)]) continue;
        const int a = added_index_[size_t(id)];
        if (a >= 0) tokens.push_back(parts_.added_normalized[size_t(a)]);
        else if (const std::string* s = parts_.model->id_to_token(id)) tokens.push_back(*s);
        // an id no token has (a gap in the vocabulary) decodes to nothing, as in Hugging Face
    }
    return tokens;
}

std::string HfTokenizer::decode_tokens(std::vector<std::string> tokens) const {
    std::string text;
    if (!parts_.has_decoder) {
        for (size_t i = 0; i < tokens.size(); ++i) text.append(i ? " " : "").append(tokens[i]);
        return text;
    }
    for (const auto& d : parts_.decoders) d->decode_chain(tokens);
    for (const auto& t : tokens) text += t;
    return text;
}

std::string HfTokenizer::decode_ids(const std::vector<int>& ids, bool skip_special) const {
    std::string text = decode_tokens(token_strings(ids, skip_special));
    return parts_.clean_up_tokenization_spaces ? clean_up_tokenization_spaces(text) : text;
}

std::string HfTokenizer::decode(const std::vector<int>& ids) const { return decode_ids(ids, true); }
std::string HfTokenizer::decode_with_special_tokens(const std::vector<int>& ids) const { return decode_ids(ids, false); }

class HfTokenizer::TextStream final : public TokenTextStream {
public:
    TextStream(const HfTokenizer& tok, bool continues) : tok_(tok) {
        const auto& p = tok.parts_;
        if (!p.has_decoder) {
            stages_.push_back(make_space_join_stage(continues));
        } else {
            bool whole = true;
            for (const auto& d : p.decoders) {
                stages_.push_back(d->make_stage(whole, continues));
                whole = d->output_whole(whole);
            }
        }
    }

    std::string push(int id) override {
        tok_.check_id(id);
        std::vector<std::string> one = tok_.token_strings({id}, /*skip_special=*/true);
        if (one.empty()) return {};
        std::vector<Chunk> chunks{{std::move(one[0]), true}};
        return finish_text(run(0, std::move(chunks)));
    }

    std::string finish() override {
        std::string text;
        for (size_t k = 0; k < stages_.size(); ++k) {
            std::vector<Chunk> out;
            stages_[k]->finish(out);
            text += run(k + 1, std::move(out));
        }
        text = finish_text(std::move(text));
        if (tok_.parts_.clean_up_tokenization_spaces) text += cleanup_.finish();
        return text;
    }

    bool holding() const override {
        for (const auto& s : stages_)
            if (s->holding()) return true;
        return cleanup_.holding();
    }

private:
    // Chunks into stage k and on through the rest; returns the text that comes out of the last.
    std::string run(size_t k, std::vector<Chunk> chunks) {
        for (; k < stages_.size() && !chunks.empty(); ++k) {
            std::vector<Chunk> out;
            for (Chunk& c : chunks) stages_[k]->push(std::move(c), out);
            chunks.swap(out);
        }
        std::string text;
        for (const Chunk& c : chunks) text += c.text;
        return text;
    }
    std::string finish_text(std::string text) {
        return tok_.parts_.clean_up_tokenization_spaces ? cleanup_.push(text) : text;
    }

    const HfTokenizer& tok_;
    std::vector<std::unique_ptr<DecoderStage>> stages_;
    CleanUpSpacesStream cleanup_;
};

std::unique_ptr<TokenTextStream> HfTokenizer::open_text_stream(bool continues_text) const {
    return std::make_unique<TextStream>(*this, continues_text);
}

std::string HfTokenizer::piece(int id) const {
    check_id(id);
    const int a = added_index_[size_t(id)];
    if (a >= 0) return parts_.added.tokens()[size_t(a)].content;
    const std::string* s = parts_.model->id_to_token(id);
    return s ? *s : std::string();
}

int HfTokenizer::piece_to_id(std::string_view piece) const {
    for (const auto& t : parts_.added.tokens())
        if (t.content == piece) return t.id;
    return parts_.model->token_to_id(piece);
}

bool HfTokenizer::is_control(int id) const {
    if (id < 0 || id >= id_bound_) return false;
    const int a = added_index_[size_t(id)];
    return a >= 0 && parts_.added.tokens()[size_t(a)].special;
}

TokenKind HfTokenizer::token_kind(int id) const {
    check_id(id);
    if (is_control(id)) return TokenKind::Control;
    if (id == unk_id_) return TokenKind::Unknown;
    const std::string* s = parts_.model->id_to_token(id);
    if (s && byte_fallback_value(*s) >= 0 && parts_.model->options().byte_fallback) return TokenKind::Byte;
    return TokenKind::Text;
}

std::string HfTokenizer::token_bytes(int id) const {
    check_id(id);
    if (is_control(id)) return {};
    const std::vector<std::string> t = token_strings({id}, false);
    if (t.empty()) return {};
    if (parts_.model->options().byte_level) {
        std::string raw;
        if (byte_level::unmap(t[0], raw)) return raw;
    }
    if (const int b = byte_fallback_value(t[0]); b >= 0 && parts_.model->options().byte_fallback)
        return std::string(1, char(b));
    return decode_tokens(t);
}

std::vector<int> HfTokenizer::special_token_ids() const {
    std::vector<int> ids;
    for (const auto& t : parts_.added.tokens()) ids.push_back(t.id);
    return ids;
}

}  // namespace folio
