#include "engine/tokenizer/decoder_stages.h"

#include "engine/tokenizer/byte_level_alphabet.h"
#include "engine/tokenizer/decoders.h"

namespace folio {
namespace {

// Collects the chunks of one token for stages that need it whole.
class TokenAssembler {
public:
    explicit TokenAssembler(bool input_whole) : whole_(input_whole) {}
    // Calls done(token) for each token that `chunk` completes (the one before it, or itself when the
    // input comes in whole tokens).
    template <typename Done>
    void push(Chunk&& chunk, Done done) {
        if (whole_) {
            done(chunk.text);
            return;
        }
        if (chunk.starts_token && have_) done(token_);
        if (chunk.starts_token || !have_) token_ = std::move(chunk.text);
        else token_ += chunk.text;
        have_ = true;
    }
    template <typename Done>
    void finish(Done done) {
        if (have_) done(token_);
        have_ = false;
        token_.clear();
    }
    bool holding() const { return have_; }

private:
    bool whole_, have_ = false;
    std::string token_;
};

class ByteLevelStage final : public DecoderStage {
public:
    ByteLevelStage(bool input_whole, bool continues) : tokens_(input_whole), started_(continues) {}

    void push(Chunk chunk, std::vector<Chunk>& out) override {
        tokens_.push(std::move(chunk), [&](const std::string& t) { emit(t, out); });
    }
    void finish(std::vector<Chunk>& out) override {
        tokens_.finish([&](const std::string& t) { emit(t, out); });
        std::string text;
        repair_.finish(text);
        if (!text.empty()) out.push_back({std::move(text), !started_});
        started_ = true;
    }
    bool holding() const override { return tokens_.holding() || repair_.holding(); }

private:
    void emit(const std::string& token, std::vector<Chunk>& out) {
        std::string text;
        if (byte_level::unmap(token, raw_)) repair_.push(raw_, text);
        else repair_.push(token, text);
        out.push_back({std::move(text), !started_});  // everything is one token
        started_ = true;
    }

    TokenAssembler tokens_;
    unicode::Utf8Repairer repair_;
    std::string raw_;
    bool started_;
};

class MetaspaceStage final : public DecoderStage {
public:
    MetaspaceStage(std::string replacement, PrependScheme scheme, bool continues)
        : replacement_(std::move(replacement)), scheme_(scheme), index_(continues ? 1 : -1) {}

    void push(Chunk chunk, std::vector<Chunk>& out) override {
        if (chunk.starts_token || index_ < 0) ++index_;
        const bool drop = index_ == 0 && scheme_ != PrependScheme::Never;
        std::string text;
        const std::string& t = chunk.text;
        for (size_t k = 0; k < t.size();) {
            if (!replacement_.empty() && t.compare(k, replacement_.size(), replacement_) == 0) {
                if (!drop) text.push_back(' ');
                k += replacement_.size();
            } else {
                text.push_back(t[k++]);
            }
        }
        out.push_back({std::move(text), chunk.starts_token});
    }
    void finish(std::vector<Chunk>&) override {}
    bool holding() const override { return false; }

private:
    std::string replacement_;
    PrependScheme scheme_;
    long index_;  // of the current token in the stream
};

class ByteFallbackStage final : public DecoderStage {
public:
    explicit ByteFallbackStage(bool input_whole) : tokens_(input_whole) {}

    void push(Chunk chunk, std::vector<Chunk>& out) override {
        tokens_.push(std::move(chunk), [&](const std::string& t) { take(t, out); });
    }
    void finish(std::vector<Chunk>& out) override {
        tokens_.finish([&](const std::string& t) { take(t, out); });
        flush(out);
    }
    bool holding() const override { return tokens_.holding() || run_len_ > 0; }

private:
    void take(const std::string& token, std::vector<Chunk>& out) {
        const int b = byte_fallback_value(token);
        if (b >= 0) {
            run_.push_back(char(b));
            ++run_len_;
            return;
        }
        flush(out);
        out.push_back({token, true});
    }
    // A run of byte pieces is decided as a whole: its text if valid UTF-8, else U+FFFD per byte.
    void flush(std::vector<Chunk>& out) {
        if (run_len_ == 0) return;
        if (unicode::first_invalid_byte(run_) == run_.size()) out.push_back({run_, true});
        else
            for (size_t k = 0; k < run_len_; ++k) out.push_back({std::string(unicode::kReplacement), true});
        run_.clear();
        run_len_ = 0;
    }

    TokenAssembler tokens_;
    std::string run_;
    size_t run_len_ = 0;
};

class FuseStage final : public DecoderStage {
public:
    explicit FuseStage(bool continues) : started_(continues) {}
    void push(Chunk chunk, std::vector<Chunk>& out) override {
        out.push_back({std::move(chunk.text), !started_});
        started_ = true;
    }
    void finish(std::vector<Chunk>&) override {}
    bool holding() const override { return false; }

private:
    bool started_;
};

class StripStage final : public DecoderStage {
public:
    StripStage(char32_t content, size_t start, size_t stop, bool continues)
        : content_(content), start_(start), stop_(stop), in_token_(continues), leading_left_(continues ? 0 : start) {
        unicode::append_utf8(content_utf8_, content);
    }

    void push(Chunk chunk, std::vector<Chunk>& out) override {
        std::string text;
        if (chunk.starts_token) {
            close_token(out);
            in_token_ = true;
            leading_left_ = start_;
        }
        const std::string& t = chunk.text;
        for (size_t k = 0; k < t.size();) {
            size_t len = 0;
            const char32_t c = unicode::decode_at(t, k, len);
            if (leading_left_ > 0) {
                if (c == content_) {
                    --leading_left_;
                    k += len;
                    continue;
                }
                leading_left_ = 0;
            }
            if (c == content_) {
                ++held_;  // may be the trailing run the token ends with
            } else {
                for (; held_ > 0; --held_) text += content_utf8_;
                text.append(t, k, len);
            }
            k += len;
        }
        out.push_back({std::move(text), chunk.starts_token});
    }
    void finish(std::vector<Chunk>& out) override { close_token(out); }
    bool holding() const override { return held_ > 0; }

private:
    void close_token(std::vector<Chunk>& out) {
        if (!in_token_) return;
        const size_t keep = held_ > stop_ ? held_ - stop_ : 0;
        std::string text;
        for (size_t k = 0; k < keep; ++k) text += content_utf8_;
        if (!text.empty()) out.push_back({std::move(text), false});
        held_ = 0;
        in_token_ = false;
    }

    char32_t content_;
    std::string content_utf8_;
    size_t start_, stop_;
    bool in_token_;
    size_t leading_left_;
    size_t held_ = 0;  // trailing run of `content` not yet printed
};

class ReplaceStage final : public DecoderStage {
public:
    ReplaceStage(const SplitPattern& pattern, std::string content, bool input_whole)
        : pattern_(pattern), content_(std::move(content)), tokens_(input_whole) {}

    void push(Chunk chunk, std::vector<Chunk>& out) override {
        tokens_.push(std::move(chunk), [&](const std::string& t) { out.push_back({replace(t), true}); });
    }
    void finish(std::vector<Chunk>& out) override {
        tokens_.finish([&](const std::string& t) { out.push_back({replace(t), true}); });
    }
    bool holding() const override { return tokens_.holding(); }

private:
    std::string replace(const std::string& t) const {
        struct Sink final : SegmentSink {
            const std::string& src;
            const std::string& content;
            std::string out;
            Sink(const std::string& s, const std::string& c) : src(s), content(c) {}
            void segment(size_t start, size_t end, bool is_match) override {
                if (is_match) out.append(content);
                else out.append(src, start, end - start);
            }
        } sink(t, content_);
        pattern_.find_segments(t, sink);
        return std::move(sink.out);
    }

    const SplitPattern& pattern_;
    std::string content_;
    TokenAssembler tokens_;
};

class SpaceJoinStage final : public DecoderStage {
public:
    explicit SpaceJoinStage(bool continues) : started_(continues) {}
    void push(Chunk chunk, std::vector<Chunk>& out) override {
        if (chunk.starts_token && started_) chunk.text.insert(0, 1, ' ');
        started_ = true;
        out.push_back(std::move(chunk));
    }
    void finish(std::vector<Chunk>&) override {}
    bool holding() const override { return false; }

private:
    bool started_;
};

}  // namespace

std::unique_ptr<DecoderStage> make_byte_level_stage(bool input_whole, bool continues) {
    return std::make_unique<ByteLevelStage>(input_whole, continues);
}
std::unique_ptr<DecoderStage> make_metaspace_stage(std::string replacement, PrependScheme scheme, bool continues) {
    return std::make_unique<MetaspaceStage>(std::move(replacement), scheme, continues);
}
std::unique_ptr<DecoderStage> make_byte_fallback_stage(bool input_whole) {
    return std::make_unique<ByteFallbackStage>(input_whole);
}
std::unique_ptr<DecoderStage> make_fuse_stage(bool continues) { return std::make_unique<FuseStage>(continues); }
std::unique_ptr<DecoderStage> make_strip_stage(char32_t content, size_t start, size_t stop, bool continues) {
    return std::make_unique<StripStage>(content, start, stop, continues);
}
std::unique_ptr<DecoderStage> make_replace_stage(const SplitPattern& pattern, std::string content, bool input_whole) {
    return std::make_unique<ReplaceStage>(pattern, std::move(content), input_whole);
}
std::unique_ptr<DecoderStage> make_space_join_stage(bool continues) { return std::make_unique<SpaceJoinStage>(continues); }

// transformers' clean_up_tokenization: these replacements, each over the whole text, in this order.
std::string clean_up_tokenization_spaces(std::string_view text) {
    static constexpr std::pair<std::string_view, std::string_view> kRules[] = {
        {" .", "."},   {" ?", "?"},     {" !", "!"},     {" ,", ","},     {" ' ", "'"},
        {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
    };
    std::string s(text), next;
    for (const auto& [from, to] : kRules) {
        if (s.find(from) == std::string::npos) continue;
        next.clear();
        size_t start = 0;
        for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, start)) {
            next.append(s, start, pos - start).append(to);
            start = pos + from.size();
        }
        next.append(s, start, std::string::npos);
        s.swap(next);
    }
    return s;
}

// Every rule starts with a space and spans at most 4 bytes, and none creates an earlier rule's match,
// so the text can be cut anywhere the 4 bytes before the cut hold no space: the rules change nothing
// across such a cut.
std::string CleanUpSpacesStream::push(std::string_view text) {
    held_.append(text);
    size_t cut = held_.size();
    for (;;) {
        const size_t from = cut >= 4 ? cut - 4 : 0;
        const size_t space = held_.rfind(' ', cut == 0 ? 0 : cut - 1);
        if (cut == 0 || space == std::string::npos || space < from) break;
        cut = space;
    }
    std::string out = clean_up_tokenization_spaces(std::string_view(held_).substr(0, cut));
    held_.erase(0, cut);
    return out;
}

std::string CleanUpSpacesStream::finish() {
    std::string out = clean_up_tokenization_spaces(held_);
    held_.clear();
    return out;
}

}  // namespace folio
