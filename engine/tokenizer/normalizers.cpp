#include "engine/tokenizer/normalizers.h"

#include <unicode/bytestream.h>
#include <unicode/uchar.h>
#include <unicode/normalizer2.h>

#include "engine/core/error.h"
#include "engine/tokenizer/unicode_text.h"

namespace folio {
namespace {

bool is_ascii(const std::string& s) {
    for (char c : s)
        if (uint8_t(c) >= 0x80) return false;
    return true;
}

class UnicodeNormalizer final : public Normalizer {
public:
    explicit UnicodeNormalizer(UnicodeForm form) {
        UErrorCode err = U_ZERO_ERROR;
        switch (form) {
            case UnicodeForm::NFC: n2_ = icu::Normalizer2::getNFCInstance(err); break;
            case UnicodeForm::NFD: n2_ = icu::Normalizer2::getNFDInstance(err); break;
            case UnicodeForm::NFKC: n2_ = icu::Normalizer2::getNFKCInstance(err); break;
            case UnicodeForm::NFKD: n2_ = icu::Normalizer2::getNFKDInstance(err); break;
        }
        if (U_FAILURE(err) || !n2_) throw Error(std::string("ICU has no Unicode normalizer: ") + u_errorName(err));
    }

    void normalize(std::string& s) const override {
        if (is_ascii(s)) return;  // ASCII is in every normal form
        UErrorCode err = U_ZERO_ERROR;
        if (n2_->isNormalizedUTF8(s, err) && U_SUCCESS(err)) return;
        err = U_ZERO_ERROR;
        std::string out;
        out.reserve(s.size() + s.size() / 4);
        icu::StringByteSink<std::string> sink(&out);
        n2_->normalizeUTF8(0, s, sink, nullptr, err);
        if (U_FAILURE(err)) throw Error(std::string("Unicode normalization failed: ") + u_errorName(err));
        s.swap(out);
    }

private:
    const icu::Normalizer2* n2_ = nullptr;
};

class Lowercase final : public Normalizer {
public:
    void normalize(std::string& s) const override {
        if (is_ascii(s)) {
            for (char& c : s)
                if (c >= 'A' && c <= 'Z') c = char(c + 32);
            return;
        }
        // Character by character, as Rust's char::to_lowercase (no final-sigma context): the simple
        // mapping, except U+0130 whose full lowercase is two characters.
        std::string out;
        out.reserve(s.size());
        for (size_t i = 0; i < s.size();) {
            size_t len = 0;
            const char32_t c = unicode::decode_at(s, i, len);
            if (c == 0x130) out.append("i\xCC\x87");
            else unicode::append_utf8(out, char32_t(u_tolower(UChar32(c))));
            i += len;
        }
        s.swap(out);
    }
};

class Strip final : public Normalizer {
public:
    Strip(bool left, bool right) : left_(left), right_(right) {}
    void normalize(std::string& s) const override {
        size_t begin = 0, end = s.size();
        if (left_) {
            while (begin < end) {
                size_t len = 0;
                if (!unicode::is_white_space(unicode::decode_at(s, begin, len))) break;
                begin += len;
            }
        }
        if (right_) {
            while (end > begin) {
                size_t start = end - 1;
                while (start > begin && (uint8_t(s[start]) & 0xC0) == 0x80) --start;
                size_t len = 0;
                if (!unicode::is_white_space(unicode::decode_at(s, start, len))) break;
                end = start;
            }
        }
        s = s.substr(begin, end - begin);
    }

private:
    bool left_, right_;
};

class Prepend final : public Normalizer {
public:
    explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
    void normalize(std::string& s) const override {
        if (!s.empty()) s.insert(0, prefix_);
    }

private:
    std::string prefix_;
};

class Replace final : public Normalizer {
public:
    Replace(std::unique_ptr<SplitPattern> pattern, std::string content)
        : pattern_(std::move(pattern)), content_(std::move(content)) {}

    void normalize(std::string& s) const override {
        struct Sink final : SegmentSink {
            const std::string& src;
            const std::string& content;
            std::string out;
            Sink(const std::string& s, const std::string& c) : src(s), content(c) {}
            void segment(size_t start, size_t end, bool is_match) override {
                if (is_match) out.append(content);
                else out.append(src, start, end - start);
            }
        } sink(s, content_);
        sink.out.reserve(s.size());
        pattern_->find_segments(s, sink);
        s.swap(sink.out);
    }

private:
    std::unique_ptr<SplitPattern> pattern_;
    std::string content_;
};

class NormalizerSequence final : public Normalizer {
public:
    explicit NormalizerSequence(std::vector<std::unique_ptr<Normalizer>> stages) : stages_(std::move(stages)) {}
    void normalize(std::string& s) const override {
        for (const auto& n : stages_) n->normalize(s);
    }

private:
    std::vector<std::unique_ptr<Normalizer>> stages_;
};

}  // namespace

std::unique_ptr<Normalizer> make_unicode_normalizer(UnicodeForm form) { return std::make_unique<UnicodeNormalizer>(form); }
std::unique_ptr<Normalizer> make_lowercase() { return std::make_unique<Lowercase>(); }
std::unique_ptr<Normalizer> make_strip(bool left, bool right) { return std::make_unique<Strip>(left, right); }
std::unique_ptr<Normalizer> make_prepend(std::string prefix) { return std::make_unique<Prepend>(std::move(prefix)); }
std::unique_ptr<Normalizer> make_replace(std::unique_ptr<SplitPattern> pattern, std::string content) {
    return std::make_unique<Replace>(std::move(pattern), std::move(content));
}
std::unique_ptr<Normalizer> make_normalizer_sequence(std::vector<std::unique_ptr<Normalizer>> stages) {
    return std::make_unique<NormalizerSequence>(std::move(stages));
}

}  // namespace folio
