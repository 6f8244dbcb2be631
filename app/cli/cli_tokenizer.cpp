#include "app/cli/cli_tokenizer.h"

#include "app/cli/command_line.h"
#include "engine/core/error.h"
#include "engine/model/dummy_model.h"
#include "engine/tokenizer/tokenizer_loader.h"

namespace folio::cli {

CliTokenizer load_cli_tokenizer(const std::string& model) {
    // dummy:NAME has no tokenizer of its own: the byte tokenizer load_model gives it (no weights made).
    if (model.rfind("dummy:", 0) == 0) return {make_byte_tokenizer(dummy_config(model.substr(6)).vocab_size), TokenizerConfig{}};
    return {load_tokenizer(model), load_tokenizer_config(model)};
}

void check_backend(const std::string& b) {
    if (b != "auto" && b != "cpu" && b != "cuda") throw UsageError("unknown backend '" + b + "': use auto, cpu or cuda");
}

}  // namespace folio::cli
