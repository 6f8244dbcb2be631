// folio-cli: the engine from a terminal (generate, chat, tokenize, detokenize, template, export) and the
// model library (pull, models, rm).
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/cli/commands.h"
#include "engine/core/error.h"

namespace {

void usage(FILE* out) {
    std::fprintf(out,
        "usage: folio-cli COMMAND [OPTIONS]\n"
        "\n"
        "commands:\n"
        "  generate --model DIR|dummy:NAME --prompt TEXT --max-tokens N [--temperature T --top-p P\n"
        "           --top-k K --min-p M --repetition-penalty R --seed S --stop STR] [--raw] [--json]\n"
        "  chat     --model DIR|dummy:NAME [--system TEXT] [sampling options]\n"
        "  tokenize --model DIR (--text TEXT | --file F) [--bos | --add-special-tokens] [--json]\n"
        "  detokenize --model DIR --ids 1,2,3 [--skip-special-tokens] [--json]\n"
        "  template --model DIR --messages FILE.json [--add-generation-prompt]\n"
        "  perplexity --model DIR|dummy:NAME --file TEXT [--ctx 512] [--parallel 8] [--json]\n"
        "           [--save-logits BASE.lp | --kl-divergence BASE.lp]\n"
        "  pull     ORG/NAME[@REVISION] [--include GLOB]... [--exclude GLOB]... [--all] [--jobs N] [--json]\n"
        "  models   [--json] [--context N] [--folder DIR]... [--data-dir DIR]\n"
        "  rm       ORG/NAME[@REVISION]\n"
        "  export   --model DIR|dummy:NAME --out DIR --tokenizer FILE|DIR [--format float|awq] [--group-size 128]\n"
        "           writes a float model as a Hugging Face folder (floats, or AWQ 4-bit by round to nearest)\n"
        "\n"
        "every command takes --backend auto|cpu|cuda (auto: CUDA when a GPU is present)\n"
        "generate and chat also take --backend remote --endpoint URL [--api-key KEY] [--remote-model NAME]:\n"
        "           an OpenAI-compatible server (folio-server, vLLM, llama.cpp) runs the model instead of --model\n"
        "generate, chat and perplexity take --cpu-activations int8|exact: the CPU backend's fast int8 activations\n"
        "           (default) or its exact mode (three int8 parts, fp32-class results: the reference the tests use),\n"
        "           --quantization fp8 (fp16/bf16 weights to FP8 at load),\n"
        "           --kv-cache-dtype auto|fp8|fp8_e4m3|fp8_e5m2 and --calculate-kv-scales (FP8 KV scales from the first batch)\n");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string cmd = argv[1];
    // stdout carries the command's output (text, JSON, a rendered prompt); engine logs go to stderr.
    spdlog::set_default_logger(spdlog::stderr_color_mt("folio"));
    try {
        if (cmd == "generate") return folio::cli::run_generate(argc, argv, 2);
        if (cmd == "chat") return folio::cli::run_chat(argc, argv, 2);
        if (cmd == "tokenize") return folio::cli::run_tokenize(argc, argv, 2);
        if (cmd == "template") return folio::cli::run_template(argc, argv, 2);
        if (cmd == "perplexity") return folio::cli::run_perplexity(argc, argv, 2);
        if (cmd == "detokenize") return folio::cli::run_detokenize(argc, argv, 2);
        if (cmd == "pull") return folio::cli::run_pull(argc, argv, 2);
        if (cmd == "models") return folio::cli::run_models(argc, argv, 2);
        if (cmd == "rm") return folio::cli::run_rm(argc, argv, 2);
        if (cmd == "export") return folio::cli::run_export(argc, argv, 2);
        std::fprintf(stderr, "folio-cli: unknown command '%s'\n", cmd.c_str());
        usage(stderr);
        return 2;
    } catch (const folio::Error& e) {
        std::fprintf(stderr, "folio-cli %s: %s\n", cmd.c_str(), e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "folio-cli %s: internal error: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}
