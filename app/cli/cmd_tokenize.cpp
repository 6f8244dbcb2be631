// folio-cli tokenize --model DIR (--text TEXT | --file F) [--bos | --add-special-tokens] [--json]
//                    [--backend auto|cpu|cuda]
// Prints the ids of the text as the model's tokenizer encodes a raw prompt: no special tokens unless
// --bos (BOS in front) or --add-special-tokens (what the tokenizer adds: tokenizer.json's
// post-processor, as Hugging Face's add_special_tokens=True; for sentencepiece BOS/EOS as
// tokenizer_config.json's add_bos_token / add_eos_token say). tokenizer.json folders recognize their
// added tokens ("<|eot_id|>") in the text, as Hugging Face does; sentencepiece reads "<s>" as text.
// Needs only the tokenizer: a folder holding just tokenizer.json or tokenizer.model (or the file
// itself) is enough; dummy:NAME uses the byte tokenizer (id = UTF-8 byte + 3).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/cli_args.h"
#include "app/cli/cli_tokenizer.h"
#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "engine/core/error.h"
#include "engine/tokenizer/prompt_encoding.h"
#include "engine/tokenizer/unicode_text.h"

namespace folio::cli {
namespace {

std::string usage() {
    return "usage: folio-cli tokenize --model DIR|FILE|dummy:NAME (--text TEXT | --file F) [--bos | --add-special-tokens] [--json]\n"
           "\n"
           "Prints the token ids of the text as the model's tokenizer encodes a raw prompt: one \"id<TAB>piece\"\n"
           "line per token, or {\"ids\": [...]} with --json. No special tokens unless asked. tokenizer.json\n"
           "folders recognize their added tokens (\"<|eot_id|>\") in the text, as Hugging Face does;\n"
           "sentencepiece reads \"<s>\" as text. Needs only the tokenizer: a folder holding tokenizer.json or\n"
           "tokenizer.model, or the file itself; dummy:NAME uses the byte tokenizer (id = UTF-8 byte + 3).\n"
           "\n"
           "  --text TEXT | --file F   what to encode (exactly one; UTF-8)\n"
           "  --bos                    put the BOS token first\n"
           "  --add-special-tokens     what the tokenizer adds itself (tokenizer.json's post-processor, or\n"
           "                           BOS/EOS as tokenizer_config.json says)\n"
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
    const Args args(argc, argv, first, {"model", "text", "file", "backend"}, {"bos", "add-special-tokens", "json"});
    args.expect_no_positional();
    check_backend(args.get_or("backend", "auto"));
    const std::string model = args.require("model");
    if (args.has("text") == args.has("file")) throw UsageError("give exactly one of --text TEXT or --file F");
    if (args.has("bos") && args.has("add-special-tokens")) throw UsageError("give --bos or --add-special-tokens, not both");
    const std::string text = args.has("text") ? *args.get("text") : read_input_file(*args.get("file"));
    if (const size_t bad = unicode::first_invalid_byte(text); bad != text.size())
        throw Error(std::string(args.has("text") ? "--text" : "--file " + *args.get("file")) +
                    " is not valid UTF-8 (byte " + std::to_string(bad) + "); convert it to UTF-8, e.g. with iconv");

    const auto [tokenizer, config] = load_cli_tokenizer(model);
    std::vector<int32_t> ids = encode_prompt(*tokenizer, config, text, /*add_special=*/args.has("add-special-tokens"));
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
