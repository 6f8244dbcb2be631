// folio-cli pull / models / rm end to end against the fake Hub: a model is found, downloaded
// (interrupted by a kill and resumed, stopped by a full disk and resumed), verified, listed with its
// fit, opened by generate, and removed. Every process gets HF_ENDPOINT and HF_HUB_CACHE of its test.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"
#include "tests/hub/fake_hub_server.h"
#include "tests/support/fixtures.h"

extern char** environ;

namespace folio::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kRepo = "karpathy/stories260K";

// The stories260K fixture as a Hub repository (weights and tokenizer as LFS files).
FakeHubSpec stories_repo() {
    FakeHubSpec s;
    for (const auto& e : fs::directory_iterator(fixture_path("models/stories260K"))) {
        const std::string name = e.path().filename().string();
        s.file(kRepo, name, read_file(e.path().string()), name == "model.safetensors" || name == "tokenizer.model");
    }
    s.repo_field(kRepo, "tags", json::array({"safetensors", "llama"}));
    return s;
}

// Points the child processes at the fake Hub and a fresh cache.
struct HubEnvironment {
    TempDir cache, data;
    HubEnvironment(const FakeHub& server) {
        ::setenv("HF_ENDPOINT", server.endpoint().c_str(), 1);
        ::setenv("HF_HUB_CACHE", cache.path().c_str(), 1);
        ::unsetenv("HF_TOKEN");
        ::unsetenv("HF_HUB_OFFLINE");
        ::setenv("HF_HOME", data.path().c_str(), 1);  // no token file of the machine's user
    }
    ~HubEnvironment() {
        for (const char* v : {"HF_ENDPOINT", "HF_HUB_CACHE", "HF_TOKEN", "HF_HUB_OFFLINE", "HF_HOME"}) ::unsetenv(v);
    }
    std::string snapshot() const { return cache.path() + "/models--karpathy--stories260K/snapshots/" + kCommitA; }
};

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
}

uint64_t incomplete_bytes(const std::string& cache) {
    uint64_t n = 0;
    const fs::path blobs = cache + "/models--karpathy--stories260K/blobs";
    std::error_code ec;
    if (!fs::is_directory(blobs, ec)) return 0;
    for (const auto& e : fs::directory_iterator(blobs, ec)) {
        if (e.path().extension() != ".incomplete") continue;
        const uintmax_t size = fs::file_size(e.path(), ec);  // the pull may finish a file (rename it) meanwhile
        if (!ec) n += size;
    }
    return n;
}

// Runs `argv` in the background (stdout and stderr to files in `dir`); returns its pid.
pid_t spawn(const std::vector<std::string>& args, const TempDir& dir) {
    std::vector<std::string> store = args;
    std::vector<char*> argv;
    for (auto& a : store) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, dir.file("out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, dir.file("err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

TEST(CliPull, PullListOpenRemove) {
    FakeHub server(stories_repo());
    HubEnvironment env(server);
    const CliResult pull = run_cli({"pull", kRepo});
    ASSERT_EQ(pull.exit_code, 0) << pull.err;
    EXPECT_EQ(trimmed(pull.out), env.snapshot());  // stdout: the folder to load
    EXPECT_NE(pull.err.find("verified model.safetensors"), std::string::npos) << pull.err;
    EXPECT_NE(pull.err.find("ready: karpathy/stories260K@main"), std::string::npos) << pull.err;
    EXPECT_EQ(read_file(env.snapshot() + "/model.safetensors"), read_file(fixture_path("models/stories260K/model.safetensors")));

    const CliResult list = run_cli({"models", "--json", "--context", "256", "--backend", "cpu", "--data-dir", env.data.path()});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    const json models = json::parse(list.out)["models"];
    ASSERT_EQ(models.size(), 1u) << list.out;
    EXPECT_EQ(models[0]["name"], kRepo);
    EXPECT_EQ(models[0]["source"], "hub-cache");
    EXPECT_EQ(models[0]["family"], "Llama");
    EXPECT_EQ(models[0]["format"], "fp32");
    EXPECT_EQ(models[0]["refs"], json::array({"main"}));
    EXPECT_TRUE(models[0]["runnable"].get<bool>());
    EXPECT_TRUE(models[0]["fit"]["fits"].get<bool>()) << models[0]["fit"].dump();
    EXPECT_EQ(models[0]["fit"]["context"], 256);

    const CliResult gen = run_cli({"generate", "--model", trimmed(pull.out), "--prompt", "Once upon a time", "--max-tokens", "8",
                                   "--backend", "cpu", "--temperature", "0"});
    EXPECT_EQ(gen.exit_code, 0) << gen.err;
    EXPECT_FALSE(gen.out.empty());

    const CliResult rm = run_cli({"rm", kRepo});
    ASSERT_EQ(rm.exit_code, 0) << rm.err;
    EXPECT_NE(rm.out.find("removed karpathy/stories260K: 1 snapshot, 8 files"), std::string::npos) << rm.out;
    EXPECT_FALSE(fs::exists(env.cache.path() + "/models--karpathy--stories260K"));
    const CliResult again = run_cli({"rm", kRepo});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_NE(again.err.find("is not in the hub cache"), std::string::npos) << again.err;
}

TEST(CliPull, KilledMidDownloadResumesWhereItStopped) {
    FakeHubSpec spec = stories_repo();
    spec.fault(kRepo + "/model.safetensors", {{"kind", "slow"}, {"chunk", 16384}, {"delay", 0.05}, {"times", 1}});
    FakeHub server(spec);
    HubEnvironment env(server);
    TempDir io;
    const pid_t pid = spawn({cli_path(), "pull", kRepo}, io);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (incomplete_bytes(env.cache.path()) < 100000 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ::kill(pid, SIGKILL);  // as if the machine went down: no cleanup at all
    int status = 0;
    ::waitpid(pid, &status, 0);
    const uint64_t kept = incomplete_bytes(env.cache.path());
    ASSERT_GE(kept, 100000u) << read_file(io.file("err"));
    EXPECT_FALSE(fs::exists(env.snapshot() + "/model.safetensors"));

    server.reset_log();
    const CliResult resumed = run_cli({"pull", kRepo});
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("resuming at"), std::string::npos) << resumed.err;
    EXPECT_EQ(read_file(env.snapshot() + "/model.safetensors"), read_file(fixture_path("models/stories260K/model.safetensors")));
    bool ranged = false;
    for (const auto& e : server.log())
        if (e["server"] == "cdn" && e["range"].is_string()) {
            const uint64_t from = std::stoull(e["range"].get<std::string>().substr(6));
            ranged = from >= kept - 16384 && from <= kept;  // where the killed process's last write ended
        }
    EXPECT_TRUE(ranged) << server.log().dump();
    EXPECT_EQ(incomplete_bytes(env.cache.path()), 0u);
}

TEST(CliPull, InterruptPausesAndSaysHowToResume) {
    FakeHubSpec spec = stories_repo();
    spec.fault(kRepo + "/model.safetensors", {{"kind", "slow"}, {"chunk", 16384}, {"delay", 0.05}, {"times", 1}});
    FakeHub server(spec);
    HubEnvironment env(server);
    TempDir io;
    const pid_t pid = spawn({cli_path(), "pull", kRepo}, io);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (incomplete_bytes(env.cache.path()) < 50000 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ::kill(pid, SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);
    const std::string err = read_file(io.file("err"));
    EXPECT_NE(err.find("paused"), std::string::npos) << err;
    EXPECT_NE(err.find("run the same command to resume"), std::string::npos) << err;
    EXPECT_GE(incomplete_bytes(env.cache.path()), 50000u);
}

TEST(CliPull, FullDiskIsAClearErrorAndTheNextPullResumes) {
    FakeHub server(stories_repo());
    HubEnvironment env(server);
    // A file-size limit makes writes past 512 KB fail as a full disk does, in this process only
    // (SIGXFSZ ignored, so write() returns an error instead of killing it).
    const CliResult full = run_cli({"pull", kRepo, "--jobs", "1"}, "", {"sh", "-c", "trap '' XFSZ; ulimit -f 1024; exec \"$0\" \"$@\""});
    EXPECT_EQ(full.exit_code, 1) << full.err;
    EXPECT_NE(full.err.find("cannot write"), std::string::npos) << full.err;
    EXPECT_NE(full.err.find("File too large"), std::string::npos) << full.err;
    EXPECT_NE(full.err.find("downloaded so far are kept"), std::string::npos) << full.err;
    EXPECT_FALSE(fs::exists(env.snapshot() + "/model.safetensors"));
    const uint64_t kept = incomplete_bytes(env.cache.path());
    EXPECT_GT(kept, 0u);

    const CliResult resumed = run_cli({"pull", kRepo});
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_EQ(read_file(env.snapshot() + "/model.safetensors"), read_file(fixture_path("models/stories260K/model.safetensors")));
}

TEST(CliPull, GatedRepositoryNeedsAToken) {
    FakeHubSpec spec = stories_repo();
    spec.repo_field(kRepo, "gated_token", "hf_ok");
    FakeHub server(spec);
    HubEnvironment env(server);
    const CliResult denied = run_cli({"pull", kRepo});
    EXPECT_EQ(denied.exit_code, 1);
    EXPECT_NE(denied.err.find("karpathy/stories260K is a gated repository"), std::string::npos) << denied.err;
    EXPECT_NE(denied.err.find("HF_TOKEN"), std::string::npos) << denied.err;
    ::setenv("HF_TOKEN", "hf_ok", 1);
    const CliResult ok = run_cli({"pull", kRepo});
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(CliPull, ModelsListsTheAppsRecentFolders) {
    FakeHub server(stories_repo());
    HubEnvironment env(server);
    const std::string awq = fixture_path("models/tiny-awq");
    write_file(env.data.file("settings.ini"), "[models]\nlast=" + awq + "\nrecent=dummy:tiny, \"" + awq + "\", /no/such/dir\n");
    const CliResult list = run_cli({"models", "--json", "--backend", "cpu", "--data-dir", env.data.path()});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    const json models = json::parse(list.out)["models"];
    ASSERT_EQ(models.size(), 1u) << list.out;
    EXPECT_EQ(models[0]["source"], "folder");
    EXPECT_EQ(models[0]["path"], awq);
    EXPECT_EQ(models[0]["format"], "AWQ 4-bit g128");
}

TEST(CliPull, BadUsageAndOffline) {
    FakeHub server(stories_repo());
    HubEnvironment env(server);
    EXPECT_NE(run_cli({"pull"}).err.find("give one repository"), std::string::npos);
    EXPECT_NE(run_cli({"pull", "a/b/c"}).err.find("one '/'"), std::string::npos);
    EXPECT_NE(run_cli({"pull", kRepo, "--jobs", "99"}).err.find("--jobs must be 1 to 16"), std::string::npos);
    ::setenv("HF_HUB_OFFLINE", "1", 1);
    const CliResult offline = run_cli({"pull", kRepo});
    EXPECT_EQ(offline.exit_code, 1);
    EXPECT_NE(offline.err.find("HF_HUB_OFFLINE=1"), std::string::npos) << offline.err;
    EXPECT_TRUE(server.log().empty());
}

}  // namespace
}  // namespace folio::test
