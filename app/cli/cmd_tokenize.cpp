// folio-cli tokenize --model DIR (--text TEXT | --file F) [--bos] [--json] [--backend auto|cpu|cuda]
// Prints the ids of the text as the model's tokenizer encodes a raw prompt: no BOS unless --bos.
// Needs only the tokenizer: a folder holding just tokenizer.model (or the file itself) is enough;
// dummy:NAME uses the byte tokenizer (id = UTF-8 byte + 3).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "engine/core/error.h"
#include "engine/model/dummy_model.h"
#include "engine/model/model.h"
#include "engine/tokenizer/prompt_encoding.h"
#include "engine/tokenizer/tokenizer_config.h"
#include "engine/tokenizer/tokenizer_loader.h"

namespace folio::cli {
namespace {

std::string usage() {
    return "usage: folio-cli tokenize --model DIR|FILE|dummy:NAME (--text TEXT | --file F) [--bos] [--json]\n"
           "\n"
           "Prints the token ids of the text as the model's tokenizer encodes a raw prompt (no BOS unless\n"
           "--bos): one \"id<TAB>piece\" line per token, or {\"ids\": [...]} with --json. Needs only the\n"
           "tokenizer: a folder holding tokenizer.model, or the file itself.\n"
           "\n"
           "  --text TEXT | --file F   what to encode (exactly one)\n"
           "  --bos                    put the BOS token first\n"
           "  --json                   one JSON object\n"
           "  --backend auto|cpu|cuda  accepted for symmetry with the other commands (nothing runs on it)\n";
}

std::string read_input_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw Error("--file " + path + ": no such file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("--file " + path + ": cannot read it");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int run(int argc, char** argv, int first) {
    const Args args(argc, argv, first, {"model", "text", "file", "backend"}, {"bos", "json"});
    args.expect_no_positional();
    // Tokenizing needs no device, so the value is only checked (without linking the backend factory).
    args.get_choice("backend", {"auto", "cpu", "cuda"}, "auto");
    const std::string model = args.require("model");
    if (args.has("text") == args.has("file")) throw UsageError("give exactly one of --text TEXT or --file F");
    const std::string text = args.has("text") ? *args.get("text") : read_input_file(*args.get("file"));

    // dummy:NAME has no tokenizer of its own: the byte tokenizer load_model gives it (no weights made).
    const bool dummy = model.rfind("dummy:", 0) == 0;
    const auto tokenizer = dummy ? make_byte_tokenizer(dummy_config(model.substr(6)).vocab_size) : load_tokenizer(model);
    const TokenizerConfig config = dummy ? TokenizerConfig{} : load_tokenizer_config(model);
    std::vector<int32_t> ids = encode_prompt(*tokenizer, config, text, /*add_special=*/false);
    if (args.has("bos")) {
        const int bos = bos_token_id(*tokenizer, config);
        if (bos < 0) throw Error("--bos: the tokenizer of " + model + " has no BOS token");
        ids.insert(ids.begin(), bos);
    }

    if (args.has("json")) {
        const nlohmann::json out = {{"ids", ids}};
        std::printf("%s\n", out.dump().c_str());
    } else {
        for (int32_t id : ids) std::printf("%d\t%s\n", id, tokenizer->piece(id).c_str());
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

const Command tokenize_command = {"tokenize", "the token ids of a text", usage, run};

}  // namespace folio::cli
