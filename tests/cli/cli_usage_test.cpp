// The command-line conventions every Folio executable keeps (app/cli/command_line.h): --help and -h
// print the usage on stdout and exit 0, --version prints "NAME VERSION" and exits 0, bad usage prints
// the message and the usage on stderr and exits 2. Checked on folio-cli itself, on every command its
// --help lists (so a new command is covered the day it is listed), on folio-bench and on the developer
// benchmarks, and on the desktop app `folio` (when it is built) with no display at all.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace folio::test {
namespace {

bool starts_with(const std::string& s, const std::string& head) { return s.rfind(head, 0) == 0; }

// `path` (run as `path words...`) answers --help, -h, --version and a bogus option as it should;
// `usage_head` is how its usage text starts.
void expect_conventions(const std::string& path, const std::vector<std::string>& words, const std::string& name,
                        const std::string& usage_head) {
    SCOPED_TRACE(name);
    for (const char* help : {"--help", "-h"}) {
        auto args = words;
        args.push_back(help);
        const CliResult r = run_binary(path, args);
        EXPECT_EQ(r.exit_code, 0) << help << ": " << r.err;
        EXPECT_TRUE(starts_with(r.out, usage_head)) << help << ": " << r.out;
        EXPECT_EQ(r.err, "");
    }
    auto args = words;
    args.push_back("--version");
    CliResult r = run_binary(path, args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string program = name.substr(0, name.find(' '));
    EXPECT_EQ(r.out, program + " " FOLIO_VERSION "\n");
    EXPECT_EQ(r.err, "");

    args = words;
    args.push_back("--no-such-option");
    r = run_binary(path, args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(starts_with(r.err, name + ": unknown option --no-such-option\n\n" + usage_head)) << r.err;
}

// The command names `folio-cli --help` lists under "commands:".
std::vector<std::string> listed_commands() {
    const CliResult r = run_cli({"--help"});
    std::istringstream in(r.out);
    std::vector<std::string> names;
    bool in_list = false;
    for (std::string line; std::getline(in, line);) {
        if (line == "commands:") in_list = true;
        else if (in_list && line.empty()) break;
        else if (in_list) names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
    return names;
}

TEST(CommandLine, FolioCliItself) {
    expect_conventions(cli_path(), {}, "folio-cli", "usage: folio-cli COMMAND");
    CliResult r = run_cli({});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(starts_with(r.err, "folio-cli: no command given\n\nusage: folio-cli COMMAND")) << r.err;
    r = run_cli({"frobnicate"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(starts_with(r.err, "folio-cli: unknown command 'frobnicate'\n\nusage: folio-cli COMMAND")) << r.err;
    r = run_cli({"help", "frobnicate"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
}

TEST(CommandLine, EveryListedCommand) {
    const std::vector<std::string> commands = listed_commands();
    for (const char* known : {"generate", "chat", "tokenize", "template", "perplexity", "pull", "models", "rm"})
        EXPECT_NE(std::find(commands.begin(), commands.end(), known), commands.end()) << known;
    for (const std::string& c : commands) {
        const std::string head = "usage: folio-cli " + c + " ";
        expect_conventions(cli_path(), {c}, "folio-cli " + c, head);
        // `folio-cli help COMMAND` is the same text as `folio-cli COMMAND --help`.
        const CliResult help = run_cli({"help", c});
        EXPECT_EQ(help.exit_code, 0);
        EXPECT_EQ(help.out, run_cli({c, "--help"}).out);
    }
}

TEST(CommandLine, HelpIsAnOptionNotAValue) {
    // "--help" as the value of --prompt is the prompt: the command runs (and here fails for want of a
    // model) instead of printing its usage.
    const CliResult r = run_cli({"generate", "--prompt", "--help"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--model is required"), std::string::npos) << r.err;
}

TEST(CommandLine, FolioBench) { expect_conventions(FOLIO_BENCH_PATH, {}, "folio-bench", "usage: folio-bench "); }

TEST(CommandLine, FolioServer) { expect_conventions(FOLIO_SERVER_PATH, {}, "folio-server", "usage: folio-server "); }

TEST(CommandLine, DeveloperBenchmarks) {
    expect_conventions(FOLIO_CPU_DECODE_BENCH_PATH, {}, "cpu_decode_bench", "usage: cpu_decode_bench ");
    expect_conventions(FOLIO_CPU_KERNEL_BENCH_PATH, {}, "cpu_kernel_bench", "usage: cpu_kernel_bench ");
}

TEST(CommandLine, DesktopApp) {
#ifndef FOLIO_APP_PATH
    GTEST_SKIP() << "the desktop app is not built in this configuration (FOLIO_BUILD_APP=OFF)";
#else
    // No display of any kind: --help, --version and bad usage must not need one.
    for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) unsetenv(v);
    const std::string app = FOLIO_APP_PATH;
    for (const char* help : {"--help", "-h"}) {
        const CliResult r = run_binary(app, {help});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_TRUE(starts_with(r.out, "usage: folio [options]")) << r.out;
        EXPECT_NE(r.out.find("--model <DIR|dummy:NAME>"), std::string::npos) << r.out;
        EXPECT_EQ(r.err, "");
    }
    CliResult r = run_binary(app, {"--version"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "folio " FOLIO_VERSION "\n");
    // Qt's own options are accepted alongside ours.
    r = run_binary(app, {"-platform", "offscreen", "--help"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const std::vector<std::string>& bad : {std::vector<std::string>{"--no-such-option"}, {"--backend", "tpu"}, {"stray"}, {"--model"}}) {
        r = run_binary(app, bad);
        EXPECT_EQ(r.exit_code, 2) << bad[0] << ": " << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_TRUE(starts_with(r.err, "folio: ")) << r.err;
        EXPECT_NE(r.err.find("\n\nusage: folio [options]"), std::string::npos) << r.err;
    }
#endif
}

}  // namespace
}  // namespace folio::test
