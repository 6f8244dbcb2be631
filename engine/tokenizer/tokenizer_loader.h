#pragma once
// Making a Tokenizer from what is on disk, or the byte-level fallback.
#include <memory>
#include <string>

#include "engine/tokenizer/tokenizer.h"

namespace folio {

// Tokenizer-only loading: a folder with tokenizer.json (preferred, as transformers does) or
// tokenizer.model, or either file itself. Throws folio::Error naming the path and what is missing.
std::shared_ptr<const Tokenizer> load_tokenizer(const std::string& path);
// The byte-level fallback for dummy models given no tokenizer (Llama-like layout: ids 3..258 are bytes).
std::shared_ptr<const Tokenizer> make_byte_tokenizer(int vocab_size);

}  // namespace folio
