#pragma once
// Reading tokenizer.json (and the tokenizer_config.json beside it) into an HfTokenizer. Everything is
// validated at load: a malformed file, a missing model, a component type Folio does not read (named
// in the message, with the ones it does), a merge that names a token outside the vocabulary, ... are
// refused with folio::Error naming the file and the JSON path of the fault.
#include <memory>
#include <optional>
#include <string>

#include "engine/tokenizer/hf_tokenizer.h"

namespace folio {

// `path`: the tokenizer.json file. tokenizer_config.json in the same folder is read when present.
std::shared_ptr<const HfTokenizer> load_tokenizer_json(const std::string& path);

// The same from texts (tests). `config_json`: nullopt when there is no tokenizer_config.json.
// `source` and `config_source` name the files in messages.
std::shared_ptr<const HfTokenizer> parse_tokenizer_json(const std::string& tokenizer_json,
                                                        const std::optional<std::string>& config_json,
                                                        const std::string& source,
                                                        const std::string& config_source = "tokenizer_config.json");

}  // namespace folio
