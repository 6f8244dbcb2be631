#include "engine/tokenizer/decoders.h"

#include "engine/tokenizer/byte_level_alphabet.h"
#include "engine/tokenizer/decoder_stages.h"
#include "engine/tokenizer/unicode_text.h"

namespace folio {
namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

class ByteLevelDecoder final : public Decoder {
public:
    // Each token's characters back to the bytes they stand for (a token with a character outside
    // the alphabet, e.g. an added token, as its own UTF-8); all of it is one text, repaired.
    void decode_chain(std::vector<std::string>& tokens) const override {
        std::string bytes, raw;
        for (const std::string& t : tokens) {
            if (byte_level::unmap(t, raw)) bytes.append(raw);
            else bytes.append(t);
        }
        tokens.assign(1, unicode::to_valid_utf8(bytes));
    }
    std::unique_ptr<DecoderStage> make_stage(bool input_whole, bool continues) const override {
        return make_byte_level_stage(input_whole, continues);
    }
    bool output_whole(bool) const override { return false; }
};

class MetaspaceDecoder final : public Decoder {
public:
    MetaspaceDecoder(std::string replacement, PrependScheme scheme) : replacement_(std::move(replacement)), scheme_(scheme) {}
    // The replacement character becomes ' ', except in the first token (unless the scheme is
    // "never"), where every one of them is dropped.
    void decode_chain(std::vector<std::string>& tokens) const override {
        for (size_t i = 0; i < tokens.size(); ++i) {
            std::string out;
            const std::string& t = tokens[i];
            for (size_t k = 0; k < t.size();) {
                if (!replacement_.empty() && t.compare(k, replacement_.size(), replacement_) == 0) {
                    if (i != 0 || scheme_ == PrependScheme::Never) out.push_back(' ');
                    k += replacement_.size();
                } else {
                    out.push_back(t[k++]);
                }
            }
            tokens[i].swap(out);
        }
    }
    std::unique_ptr<DecoderStage> make_stage(bool, bool continues) const override {
        return make_metaspace_stage(replacement_, scheme_, continues);
    }
    bool output_whole(bool input_whole) const override { return input_whole; }

private:
    std::string replacement_;
    PrependScheme scheme_;
};

class ByteFallbackDecoder final : public Decoder {
public:
    // Runs of <0xAB> tokens become their text when it is valid UTF-8, else one U+FFFD per byte.
    void decode_chain(std::vector<std::string>& tokens) const override {
        std::vector<std::string> out;
        std::string run;
        size_t run_len = 0;
        auto flush = [&] {
            if (run_len == 0) return;
            if (unicode::first_invalid_byte(run) == run.size()) out.push_back(run);
            else
                for (size_t k = 0; k < run_len; ++k) out.emplace_back(unicode::kReplacement);
            run.clear();
            run_len = 0;
        };
        for (std::string& t : tokens) {
            const int b = byte_fallback_value(t);
            if (b >= 0) {
                run.push_back(char(b));
                ++run_len;
            } else {
                flush();
                out.push_back(std::move(t));
            }
        }
        flush();
        tokens.swap(out);
    }
    std::unique_ptr<DecoderStage> make_stage(bool input_whole, bool) const override {
        return make_byte_fallback_stage(input_whole);
    }
    bool output_whole(bool) const override { return true; }
};

class FuseDecoder final : public Decoder {
public:
    void decode_chain(std::vector<std::string>& tokens) const override {
        std::string all;
        for (const std::string& t : tokens) all += t;
        tokens.assign(1, std::move(all));
    }
    std::unique_ptr<DecoderStage> make_stage(bool, bool continues) const override { return make_fuse_stage(continues); }
    bool output_whole(bool) const override { return false; }
};

class StripDecoder final : public Decoder {
public:
    StripDecoder(char32_t content, size_t start, size_t stop) : content_(content), start_(start), stop_(stop) {}
    void decode_chain(std::vector<std::string>& tokens) const override {
        for (std::string& t : tokens) {
            std::vector<size_t> starts;  // byte offset of each character
            for (size_t k = 0; k < t.size(); k += unicode::sequence_length(uint8_t(t[k]))) starts.push_back(k);
            auto char_at = [&](size_t i) {
                size_t len = 0;
                return unicode::decode_at(t, starts[i], len);
            };
            const size_t n = starts.size();
            size_t start_cut = 0;
            for (size_t i = 0; i < n && i < start_; ++i) {
                if (char_at(i) != content_) break;
                start_cut = i + 1;
            }
            size_t stop_cut = n;
            for (size_t i = 0; i < stop_ && i < n; ++i) {
                if (char_at(n - 1 - i) != content_) break;
                stop_cut = n - 1 - i;
            }
            // The Rust library panics when the two cuts cross (a token of nothing but `content`); the
            // token is then all stripped.
            if (start_cut >= stop_cut) {
                t.clear();
                continue;
            }
            const size_t b0 = starts[start_cut], b1 = stop_cut < n ? starts[stop_cut] : t.size();
            t = t.substr(b0, b1 - b0);
        }
    }
    std::unique_ptr<DecoderStage> make_stage(bool, bool continues) const override {
        return make_strip_stage(content_, start_, stop_, continues);
    }
    bool output_whole(bool input_whole) const override { return input_whole; }

private:
    char32_t content_;
    size_t start_, stop_;
};

class ReplaceDecoder final : public Decoder {
public:
    ReplaceDecoder(std::unique_ptr<SplitPattern> pattern, std::string content)
        : pattern_(std::move(pattern)), content_(std::move(content)) {}
    void decode_chain(std::vector<std::string>& tokens) const override {
        struct Sink final : SegmentSink {
            const std::string* src = nullptr;
            const std::string* content = nullptr;
            std::string out;
            void segment(size_t start, size_t end, bool is_match) override {
                if (is_match) out.append(*content);
                else out.append(*src, start, end - start);
            }
        };
        for (std::string& t : tokens) {
            Sink sink;
            sink.src = &t;
            sink.content = &content_;
            pattern_->find_segments(t, sink);
            t.swap(sink.out);
        }
    }
    std::unique_ptr<DecoderStage> make_stage(bool input_whole, bool) const override {
        return make_replace_stage(*pattern_, content_, input_whole);
    }
    bool output_whole(bool) const override { return true; }

private:
    std::unique_ptr<SplitPattern> pattern_;
    std::string content_;
};

}  // namespace

int byte_fallback_value(const std::string& t) {
    if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
    if (t[3] == '+') return hex_digit(t[4]);  // Rust's from_str_radix takes a leading '+'
    const int hi = hex_digit(t[3]), lo = hex_digit(t[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

std::unique_ptr<Decoder> make_byte_level_decoder() { return std::make_unique<ByteLevelDecoder>(); }
std::unique_ptr<Decoder> make_metaspace_decoder(std::string replacement, PrependScheme scheme) {
    return std::make_unique<MetaspaceDecoder>(std::move(replacement), scheme);
}
std::unique_ptr<Decoder> make_byte_fallback_decoder() { return std::make_unique<ByteFallbackDecoder>(); }
std::unique_ptr<Decoder> make_fuse_decoder() { return std::make_unique<FuseDecoder>(); }
std::unique_ptr<Decoder> make_strip_decoder(char32_t content, size_t start, size_t stop) {
    return std::make_unique<StripDecoder>(content, start, stop);
}
std::unique_ptr<Decoder> make_replace_decoder(std::unique_ptr<SplitPattern> pattern, std::string content) {
    return std::make_unique<ReplaceDecoder>(std::move(pattern), std::move(content));
}

}  // namespace folio
