#include "tests/cli/cli_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>

#include "tests/support/fixtures.h"

extern char** environ;

namespace folio::test {

namespace {
std::string& binary() {
    static std::string path;
    return path;
}
}  // namespace

const std::string& cli_path() { return binary(); }

CliResult run_cli(const std::vector<std::string>& args) { return run_cli(args, ""); }

CliResult run_cli(const std::vector<std::string>& args, const std::string& input) { return run_binary(binary(), args, input); }

CliResult run_cli(const std::vector<std::string>& args, const std::string& input, const std::vector<std::string>& wrapper) {
    return run_binary(binary(), args, input, wrapper);
}

CliResult run_binary(const std::string& path, const std::vector<std::string>& args, const std::string& input) {
    return run_binary(path, args, input, {});
}

CliResult run_binary(const std::string& path, const std::vector<std::string>& args, const std::string& input,
                     const std::vector<std::string>& wrapper) {
    TempDir tmp;
    const std::string in_path = tmp.file("stdin");
    write_file(in_path, input);
    const std::string out_path = tmp.file("stdout"), err_path = tmp.file("stderr");
    std::vector<std::string> argv_storage = wrapper;
    argv_storage.push_back(path);
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, argv_storage.front().c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + path);
    int status = 0;
    waitpid(pid, &status, 0);
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(out_path);
    r.err = read_file(err_path);
    return r;
}

}  // namespace folio::test

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s PATH/TO/folio-cli [gtest options]\n", argv[0]);
        return 2;
    }
    folio::test::binary() = argv[1];
    return RUN_ALL_TESTS();
}
