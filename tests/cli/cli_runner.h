#pragma once
// Runs the folio-cli binary under test and captures what it prints. The binary's path is the test
// executable's first command-line argument (ctest passes $<TARGET_FILE:folio-cli>).
#include <string>
#include <vector>

namespace folio::test {

struct CliResult {
    int exit_code = -1;  // -1 when it did not exit normally (a crash)
    std::string out;     // stdout, byte for byte
    std::string err;     // stderr
};

const std::string& cli_path();
CliResult run_cli(const std::vector<std::string>& args);
// Same, with `input` as the process's standard input.
CliResult run_cli(const std::vector<std::string>& args, const std::string& input);
// Same, started through `wrapper` (a command line to which the binary's path and `args` are
// appended, e.g. {"sh", "-c", "ulimit -f 64; exec \"$0\" \"$@\""}); found on PATH.
CliResult run_cli(const std::vector<std::string>& args, const std::string& input, const std::vector<std::string>& wrapper);
// Any executable, by path.
CliResult run_binary(const std::string& path, const std::vector<std::string>& args, const std::string& input = "");
// Same, through `wrapper` as run_cli.
CliResult run_binary(const std::string& path, const std::vector<std::string>& args, const std::string& input,
                     const std::vector<std::string>& wrapper);

}  // namespace folio::test
