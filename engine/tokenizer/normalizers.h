#pragma once
// tokenizer.json's "normalizer", applied to each piece of text between added tokens. Supported: NFC,
// NFD, NFKC, NFKD (ICU), Lowercase, Strip, Prepend, Replace (string or regex), Sequence.
#include <memory>
#include <string>
#include <vector>

#include "engine/tokenizer/split_pattern.h"

namespace folio {

class Normalizer {
public:
    virtual ~Normalizer() = default;
    // Normalizes `s` (valid UTF-8) in place.
    virtual void normalize(std::string& s) const = 0;
};

enum class UnicodeForm { NFC, NFD, NFKC, NFKD };
std::unique_ptr<Normalizer> make_unicode_normalizer(UnicodeForm form);
std::unique_ptr<Normalizer> make_lowercase();
std::unique_ptr<Normalizer> make_strip(bool left, bool right);
// Prepend: `prefix` in front of a non-empty text.
std::unique_ptr<Normalizer> make_prepend(std::string prefix);
// Replace: every match of `pattern` becomes `content`.
std::unique_ptr<Normalizer> make_replace(std::unique_ptr<SplitPattern> pattern, std::string content);
std::unique_ptr<Normalizer> make_normalizer_sequence(std::vector<std::unique_ptr<Normalizer>> stages);

}  // namespace folio
