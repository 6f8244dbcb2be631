#pragma once
// The tokenizer of --model for the tokenize and detokenize commands: a folder with tokenizer.json or
// tokenizer.model (no weights needed), either file itself, or dummy:NAME (the byte tokenizer).
#include <memory>
#include <string>

#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/tokenizer_config.h"

namespace folio::cli {

struct CliTokenizer {
    std::shared_ptr<const Tokenizer> tokenizer;
    TokenizerConfig config;
};

CliTokenizer load_cli_tokenizer(const std::string& model);

// Every command takes --backend; these need no device, so the value is only checked (UsageError).
void check_backend(const std::string& backend);

}  // namespace folio::cli
