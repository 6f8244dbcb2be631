#pragma once
// What every Folio executable does with its command line, in one place (folio-cli and each of its
// commands, folio-bench, the developer benchmarks):
//   --help / -h    the usage on stdout, exit 0
//   --version      "NAME VERSION" on stdout, exit 0
//   bad usage      "NAME: what is wrong" and the usage on stderr, exit 2 (UsageError)
//   other errors   "NAME: message" on stderr, exit 1 (folio::Error: a model, a file, the engine)
// A program body parses its arguments with cli::Args (cli_args.h), which throws the first three as it
// meets them; run_program turns them into output and an exit code.
#include <functional>
#include <string>

#include "engine/core/error.h"

namespace folio::cli {

// The command line itself is wrong: an unknown option, a missing or malformed value, a required
// option absent, options that cannot go together, a value out of its range.
class UsageError : public Error {
public:
    using Error::Error;
};

// Thrown by Args when it meets --help / -h or --version (as an option, not as another option's value).
struct HelpRequested {};
struct VersionRequested {};

const char* folio_version();

// stdout carries a program's output (text, JSON, a table); the engine's log goes to stderr: warnings
// and errors, or what SPDLOG_LEVEL asks for (SPDLOG_LEVEL=info says more, such as why `--backend
// auto` did not pick CUDA).
void log_to_stderr();

// Runs `body` and returns the process's exit code as described above. `name` is how the program is
// called in messages ("folio-cli generate"); `usage` is its full usage text, ending in a newline.
int run_program(const std::string& name, const std::string& usage, const std::function<int()>& body);

}  // namespace folio::cli
