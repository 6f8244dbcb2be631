// folio-cli detokenize --model DIR --ids 1,2,3 [--skip-special-tokens] [--json] [--backend ...]
// Prints the text of token ids as the model's tokenizer decodes them, special tokens kept (Hugging
// Face's decode with skip_special_tokens=False, clean_up_tokenization_spaces as
// tokenizer_config.json says) unless --skip-special-tokens. sentencepiece prints control tokens as
// nothing either way (the library's decode). --ids takes ids separated by commas or spaces, or a JSON
// list. Needs only the tokenizer files, like tokenize.
#include <charconv>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "app/cli/cli_args.h"
#include "app/cli/cli_tokenizer.h"
#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "engine/core/error.h"

namespace folio::cli {
namespace {

std::vector<int> parse_ids(const std::string& s) {
    std::vector<int> ids;
    size_t i = 0;
    auto separator = [](char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '[' || c == ']'; };
    while (i < s.size()) {
        if (separator(s[i])) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < s.size() && !separator(s[j])) ++j;
        const std::string word = s.substr(i, j - i);
        int id = -1;
        const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), id);
        if (ec != std::errc() || end != word.data() + word.size() || id < 0)
            throw UsageError("--ids: '" + word + "' is not a token id (give ids like 1,2,3)");
        ids.push_back(id);
        i = j;
    }
    return ids;
}

std::string usage() {
    return "usage: folio-cli detokenize --model DIR|FILE|dummy:NAME --ids 1,2,3 [--skip-special-tokens] [--json]\n"
           "\n"
           "Prints the text of token ids as the model's tokenizer decodes them, special tokens kept (Hugging\n"
           "Face's decode with skip_special_tokens=False, clean_up_tokenization_spaces as\n"
           "tokenizer_config.json says) unless --skip-special-tokens. Needs only the tokenizer files.\n"
           "\n"
           "  --ids IDS                ids separated by commas or spaces, or a JSON list\n"
           "  --skip-special-tokens    leave special tokens out of the text\n"
           "  --json                   {\"text\": ...}\n"
           "  --backend auto|cpu|cuda  accepted for symmetry with the other commands (nothing runs on it)\n";
}

int run(int argc, char** argv, int first) {
    const Args args(argc, argv, first, {"model", "ids", "backend"}, {"skip-special-tokens", "json"});
    args.expect_no_positional();
    check_backend(args.get_or("backend", "auto"));
    const std::string model = args.require("model");
    const std::vector<int> ids = parse_ids(args.require("ids"));
    const auto [tokenizer, config] = load_cli_tokenizer(model);
    const std::string text =
        args.has("skip-special-tokens") ? tokenizer->decode(ids) : tokenizer->decode_with_special_tokens(ids);
    if (args.has("json")) {
        const nlohmann::json out = {{"text", text}};
        std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else {
        std::printf("%s\n", text.c_str());
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

const Command detokenize_command = {"detokenize", "the text of token ids", usage, run};

}  // namespace folio::cli
