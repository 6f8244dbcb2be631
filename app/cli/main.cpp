// folio-cli: the engine from a terminal (generate, chat, tokenize, detokenize, template, export) and the
// model library (pull, models, rm).
#include <algorithm>
#include <cstdio>
#include <string>

#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "app/cli/commands.h"

namespace folio::cli {
namespace {

const Command* const kCommands[] = {&generate_command, &chat_command,   &tokenize_command, &detokenize_command,
                                    &template_command, &perplexity_command, &pull_command, &models_command,
                                    &rm_command,       &export_command};

const Command* find_command(const std::string& name) {
    for (const Command* c : kCommands)
        if (name == c->name) return c;
    return nullptr;
}

std::string usage() {
    std::string u = "usage: folio-cli COMMAND [OPTIONS]\n       folio-cli help COMMAND\n\ncommands:\n";
    for (const Command* c : kCommands) {
        std::string name = c->name;
        name.resize(std::max<size_t>(name.size() + 2, 12), ' ');
        u += "  " + name + c->summary + "\n";
    }
    u += "\n`folio-cli COMMAND --help` shows a command's options. Every command that runs a model takes\n"
         "--backend auto|cpu|cuda (auto: CUDA when a GPU is present); generate and chat take\n"
         "--cpu-activations int8|exact (the CPU backend's fast mode, the default, or its exact one),\n"
         "--quantization fp8 and --kv-cache-dtype auto|fp8|fp8_e4m3|fp8_e5m2, and\n"
         "--backend remote --endpoint URL [--api-key KEY] [--remote-model NAME]: an OpenAI-compatible\n"
         "server (folio-server, vLLM, llama.cpp) runs the model instead of --model.\n"
         "exit status: 0 done, 1 failed (the message says why), 2 bad usage\n";
    return u;
}

// The words before a command's name: --help, --version, `help [COMMAND]`, or a command to run.
int dispatch(int argc, char** argv) {
    if (argc < 2) throw UsageError("no command given");
    const std::string first = argv[1];
    if (first == "help") {
        if (argc == 2) throw HelpRequested{};
        const Command* c = find_command(argv[2]);
        if (!c || argc > 3) throw UsageError("help takes one command name, got '" + std::string(argv[2]) + "'");
        std::fputs(c->usage().c_str(), stdout);
        return 0;
    }
    if (first.rfind("-", 0) == 0) {  // only --help / --version are options of folio-cli itself
        Args(argc, argv, 1, {}, {});
        throw UsageError("no command given");
    }
    const Command* c = find_command(first);
    if (!c) throw UsageError("unknown command '" + first + "'");
    log_to_stderr();
    return run_program(std::string("folio-cli ") + c->name, c->usage(), [&] { return c->run(argc, argv, 2); });
}

}  // namespace
}  // namespace folio::cli

int main(int argc, char** argv) {
    return folio::cli::run_program("folio-cli", folio::cli::usage(), [&] { return folio::cli::dispatch(argc, argv); });
}
