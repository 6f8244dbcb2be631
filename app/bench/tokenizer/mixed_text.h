#pragma once
// Deterministic mixed-language text for the tokenizer benchmark: English prose, code, Chinese and
// Japanese, Cyrillic, Arabic, Greek, Hindi, Korean, emoji (with ZWJ sequences, skin tones, flags),
// numbers, and runs of white space. The same seed and size give the same bytes on every machine.
#include <cstddef>
#include <cstdint>
#include <string>

namespace folio::bench {

std::string mixed_text(size_t bytes, uint64_t seed);

}  // namespace folio::bench
