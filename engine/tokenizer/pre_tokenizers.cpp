#include "engine/tokenizer/pre_tokenizers.h"

#include "engine/tokenizer/byte_level_alphabet.h"
#include "engine/tokenizer/tiktoken_split.h"
#include "engine/tokenizer/unicode_text.h"

namespace folio {
namespace {

// Applies a SplitBehavior to the segments of a pattern and emits the pieces, holding back at most
// one piece (the Rust library folds over the whole list; these are the same rules one step at a
// time). Pieces are sub-ranges of `text`.
class BehaviorSink final : public SegmentSink {
public:
    BehaviorSink(std::string_view text, bool at_start, SplitBehavior behavior, bool invert, PieceSink& out)
        : text_(text), at_start_(at_start), behavior_(behavior), invert_(invert), out_(out) {}

    void segment(size_t start, size_t end, bool is_match) override {
        if (invert_) is_match = !is_match;
        switch (behavior_) {
            case SplitBehavior::Isolated: emit(start, end); break;
            case SplitBehavior::Removed:
                if (!is_match) emit(start, end);
                break;
            case SplitBehavior::Contiguous:
                if (have_ && is_match == previous_match_) {
                    held_end_ = end;
                } else {
                    flush();
                    hold(start, end);
                }
                break;
            case SplitBehavior::MergedWithPrevious:
                if (have_ && is_match && !previous_match_) {
                    held_end_ = end;
                } else {
                    flush();
                    hold(start, end);
                }
                break;
            case SplitBehavior::MergedWithNext:
                // A match joins the non-match right after it.
                if (have_ && previous_match_ && !is_match) {
                    held_end_ = end;
                    flush();
                } else {
                    flush();
                    hold(start, end);
                }
                break;
        }
        previous_match_ = is_match;
    }

    void finish() { flush(); }

private:
    void hold(size_t start, size_t end) {
        have_ = true;
        held_start_ = start;
        held_end_ = end;
    }
    void flush() {
        if (have_) emit(held_start_, held_end_);
        have_ = false;
    }
    void emit(size_t start, size_t end) {
        if (end > start) out_.piece(text_.substr(start, end - start), at_start_ && start == 0);
    }

    std::string_view text_;
    bool at_start_;
    SplitBehavior behavior_;
    bool invert_;
    PieceSink& out_;
    bool have_ = false, previous_match_ = false;
    size_t held_start_ = 0, held_end_ = 0;
};

class SplitPreTokenizer final : public PreTokenizer {
public:
    SplitPreTokenizer(std::unique_ptr<SplitPattern> pattern, SplitBehavior behavior, bool invert)
        : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}

    void split(std::string_view text, bool at_start, PieceSink& out) const override {
        BehaviorSink sink(text, at_start, behavior_, invert_, out);
        pattern_->find_segments(text, sink);
        sink.finish();
    }

private:
    std::unique_ptr<SplitPattern> pattern_;
    SplitBehavior behavior_;
    bool invert_;
};

// Spells each piece in the byte-level alphabet before passing it on.
class MappingSink final : public PieceSink {
public:
    explicit MappingSink(PieceSink& out) : out_(out) {}
    void piece(std::string_view text, bool at_start) override {
        mapped_.clear();
        byte_level::append_mapped(text, mapped_);
        out_.piece(mapped_, at_start);
    }

private:
    PieceSink& out_;
    std::string mapped_;
};

class ByteLevelPreTokenizer final : public PreTokenizer {
public:
    ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex, bool map)
        : add_prefix_space_(add_prefix_space), map_(map),
          regex_(use_regex ? make_tiktoken_split(std::string(kGpt2Pattern)) : nullptr) {}

    void split(std::string_view text, bool at_start, PieceSink& out) const override {
        std::string prefixed;
        if (add_prefix_space_ && text.front() != ' ') {
            prefixed.reserve(text.size() + 1);
            prefixed.push_back(' ');
            prefixed.append(text);
            text = prefixed;
        }
        MappingSink mapping(out);
        PieceSink& next = map_ ? static_cast<PieceSink&>(mapping) : out;
        if (!regex_) {
            next.piece(text, at_start);
            return;
        }
        BehaviorSink sink(text, at_start, SplitBehavior::Isolated, false, next);
        regex_->find_segments(text, sink);
        sink.finish();
    }

private:
    bool add_prefix_space_, map_;
    std::unique_ptr<SplitPattern> regex_;
};

class MetaspacePreTokenizer final : public PreTokenizer {
public:
    MetaspacePreTokenizer(std::string replacement, PrependScheme scheme, bool split)
        : replacement_(std::move(replacement)), scheme_(scheme), split_(split) {
        size_t len = 0;
        const char32_t c = replacement_.empty() ? U' ' : unicode::decode_at(replacement_, 0, len);
        cut_ = make_char_pattern(c);
    }

    void split(std::string_view text, bool at_start, PieceSink& out) const override {
        std::string s;
        s.reserve(text.size() + replacement_.size() * 4);
        const bool starts_with_replacement =
            text.front() == ' ' || (!replacement_.empty() && text.substr(0, replacement_.size()) == replacement_);
        if (!starts_with_replacement &&
            (scheme_ == PrependScheme::Always || (scheme_ == PrependScheme::First && at_start)))
            s.append(replacement_);
        for (char c : text) {
            if (c == ' ') s.append(replacement_);
            else s.push_back(c);
        }
        if (!split_) {
            out.piece(s, at_start);
            return;
        }
        BehaviorSink sink(s, at_start, SplitBehavior::MergedWithNext, false, out);
        cut_->find_segments(s, sink);
        sink.finish();
    }

private:
    std::string replacement_;
    PrependScheme scheme_;
    bool split_;
    std::unique_ptr<SplitPattern> cut_;
};

class DigitsPreTokenizer final : public PreTokenizer {
public:
    explicit DigitsPreTokenizer(bool individual)
        : behavior_(individual ? SplitBehavior::Isolated : SplitBehavior::Contiguous),
          digits_(make_char_class_pattern(unicode::is_number)) {}

    void split(std::string_view text, bool at_start, PieceSink& out) const override {
        BehaviorSink sink(text, at_start, behavior_, false, out);
        digits_->find_segments(text, sink);
        sink.finish();
    }

private:
    SplitBehavior behavior_;
    std::unique_ptr<SplitPattern> digits_;
};

class SequencePreTokenizer final : public PreTokenizer {
public:
    explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> stages) : stages_(std::move(stages)) {}

    void split(std::string_view text, bool at_start, PieceSink& out) const override { run(0, text, at_start, out); }

private:
    // Stage k's pieces go to stage k + 1; the last stage's to `out`.
    struct Next final : PieceSink {
        const SequencePreTokenizer* seq;
        size_t stage;
        PieceSink* out;
        Next(const SequencePreTokenizer* s, size_t k, PieceSink* o) : seq(s), stage(k), out(o) {}
        void piece(std::string_view text, bool at_start) override { seq->run(stage, text, at_start, *out); }
    };

    void run(size_t stage, std::string_view text, bool at_start, PieceSink& out) const {
        if (stage == stages_.size()) {
            out.piece(text, at_start);
            return;
        }
        Next next(this, stage + 1, &out);
        stages_[stage]->split(text, at_start, next);
    }

    std::vector<std::unique_ptr<PreTokenizer>> stages_;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_split(std::unique_ptr<SplitPattern> pattern, SplitBehavior behavior, bool invert) {
    return std::make_unique<SplitPreTokenizer>(std::move(pattern), behavior, invert);
}
std::unique_ptr<PreTokenizer> make_byte_level(bool add_prefix_space, bool use_regex, bool map_to_alphabet) {
    return std::make_unique<ByteLevelPreTokenizer>(add_prefix_space, use_regex, map_to_alphabet);
}
std::unique_ptr<PreTokenizer> make_metaspace(std::string replacement, PrependScheme scheme, bool split) {
    return std::make_unique<MetaspacePreTokenizer>(std::move(replacement), scheme, split);
}
std::unique_ptr<PreTokenizer> make_digits(bool individual_digits) {
    return std::make_unique<DigitsPreTokenizer>(individual_digits);
}
std::unique_ptr<PreTokenizer> make_sequence(std::vector<std::unique_ptr<PreTokenizer>> stages) {
    return std::make_unique<SequencePreTokenizer>(std::move(stages));
}

}  // namespace folio
