#pragma once
// folio-cli's commands. Each lives in its own cmd_<name>.cpp and is described by one Command there;
// main.cpp lists them. `run` takes argv from the word after the command's name and returns the exit
// code; it parses with cli::Args, so --help, --version and bad usage are answered the same way for
// every command (command_line.h). Adding a command: a cmd_<name>.cpp defining `<name>_command`, its
// declaration below, and one entry in main.cpp's list.
#include <string>

namespace folio::cli {

struct Command {
    const char* name;                 // "generate"
    const char* summary;              // one line for `folio-cli --help`
    std::string (*usage)();           // the full usage text (synopsis and options), ending in a newline
    int (*run)(int argc, char** argv, int first);
};

extern const Command generate_command;  // cmd_generate.cpp
extern const Command chat_command;      // cmd_chat.cpp
extern const Command tokenize_command;  // cmd_tokenize.cpp
extern const Command template_command;  // cmd_template.cpp
extern const Command perplexity_command;  // cmd_perplexity.cpp
extern const Command detokenize_command;  // cmd_detokenize.cpp
extern const Command pull_command;      // cmd_pull.cpp
extern const Command models_command;    // cmd_models.cpp
extern const Command rm_command;        // cmd_rm.cpp
extern const Command export_command;    // cmd_export.cpp

}  // namespace folio::cli
