// Each injected fault: the download either finishes with the right bytes or fails with a clear
// message, and nothing unverified is ever left where a load could find it.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "engine/core/error.h"
#include "engine/hub/http_client.h"
#include "engine/hub/pull.h"
#include "tests/hub/fake_hub_server.h"
#include "tests/hub/pull_test_support.h"

namespace folio::test {
namespace {

namespace fs = std::filesystem;
using hub::RepoRef;
using nlohmann::json;

const std::string kRepo = "test/faulty";
const std::string kWeights = pseudo_random_bytes(200000, 11);

FakeHubSpec repo_with_fault(const std::string& path, const json& fault) {
    FakeHubSpec s;
    s.file(kRepo, "config.json", "{\"model_type\": \"llama\"}", false).file(kRepo, "model.safetensors", kWeights, true);
    if (!fault.is_null()) s.fault(kRepo + "/" + path, fault);
    return s;
}

hub::PullResult pull(const FakeHub& server, const TempDir& cache, RecordingObserver* obs = nullptr,
                     hub::PullOptions options = quick_pull_options()) {
    return hub::pull_model(server.config(cache.path()), RepoRef{kRepo, "main"}, options, obs, nullptr);
}

std::vector<std::string> ranges_asked(const json& log) {
    std::vector<std::string> out;
    for (const auto& e : log)
        if (e["server"] == "cdn" && e["range"].is_string()) out.push_back(e["range"]);
    return out;
}

TEST(PullFaults, ConnectionDroppedMidFileResumesWithRange) {
    FakeHub server(repo_with_fault("model.safetensors", {{"kind", "drop"}, {"at", 70000}}));
    TempDir cache;
    RecordingObserver obs;
    const auto res = pull(server, cache, &obs);
    EXPECT_EQ(read_file(res.snapshot_dir + "/model.safetensors"), kWeights);
    EXPECT_EQ(ranges_asked(server.log()), std::vector<std::string>{"bytes=70000-"});
    EXPECT_TRUE(obs.noticed("model.safetensors: the connection broke at 70 KB")) << obs.all_notices();
    expect_only_verified_data(cache.path(), kRepo);
}

TEST(PullFaults, DroppedSmallFileFromTheHubResumes) {
    const std::string big_config(50000, 'c');
    FakeHubSpec s;
    s.file(kRepo, "config.json", big_config, false).fault(kRepo + "/config.json", {{"kind", "drop"}, {"at", 20000}});
    FakeHub server(s);
    TempDir cache;
    const auto res = pull(server, cache);
    EXPECT_EQ(read_file(res.snapshot_dir + "/config.json"), big_config);
    expect_only_verified_data(cache.path(), kRepo);
}

TEST(PullFaults, CorruptedBytesAreDeletedAndFetchedAgain) {
    FakeHub server(repo_with_fault("model.safetensors", {{"kind", "corrupt"}, {"at", 12345}}));
    TempDir cache;
    RecordingObserver obs;
    const auto res = pull(server, cache, &obs);
    EXPECT_EQ(read_file(res.snapshot_dir + "/model.safetensors"), kWeights);
    EXPECT_TRUE(obs.noticed("does not match its sha256")) << obs.all_notices();
    EXPECT_TRUE(obs.noticed("deleted it, downloading it once more")) << obs.all_notices();
    EXPECT_EQ(count_requests(server.log(), "cdn", "/cdn/"), 2);
    expect_only_verified_data(cache.path(), kRepo);
}

TEST(PullFaults, CorruptedSmallFileFailsItsGitHash) {
    FakeHub server(repo_with_fault("config.json", {{"kind", "corrupt"}, {"at", 3}}));
    TempDir cache;
    RecordingObserver obs;
    const auto res = pull(server, cache, &obs);
    EXPECT_EQ(read_file(res.snapshot_dir + "/config.json"), "{\"model_type\": \"llama\"}");
    EXPECT_TRUE(obs.noticed("does not match its git blob sha1")) << obs.all_notices();
}

TEST(PullFaults, CorruptedEveryTimeFailsAndKeepsNothing) {
    FakeHub server(repo_with_fault("model.safetensors", {{"kind", "corrupt"}, {"at", 5}, {"times", -1}}));
    TempDir cache;
    try {
        pull(server, cache);
        FAIL() << "a corrupt file was accepted";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("model.safetensors of test/faulty failed verification twice"), std::string::npos) << m;
        EXPECT_NE(m.find("nothing of it was kept"), std::string::npos) << m;
    }
    EXPECT_EQ(count_incomplete(cache.path(), kRepo), 0);
    const std::string snap = hub::snapshot_dir(cache.path(), kRepo, kCommitA);
    EXPECT_FALSE(fs::exists(snap + "/model.safetensors"));
    expect_only_verified_data(cache.path(), kRepo);
}

TEST(PullFaults, ServerErrorsAreRetried) {
    FakeHub server(repo_with_fault("model.safetensors", {{"kind", "error"}, {"status", 503}, {"times", 2}}));
    TempDir cache;
    RecordingObserver obs;
    const auto res = pull(server, cache, &obs);
    EXPECT_EQ(read_file(res.snapshot_dir + "/model.safetensors"), kWeights);
    EXPECT_TRUE(obs.noticed("answered HTTP 503")) << obs.all_notices();
}

TEST(PullFaults, ApiServerErrorsAreRetried) {
    FakeHub server(repo_with_fault("@api", {{"kind", "error"}, {"status", 500}, {"times", 2}}));
    TempDir cache;
    EXPECT_EQ(read_file(pull(server, cache).snapshot_dir + "/model.safetensors"), kWeights);
}

TEST(PullFaults, PersistentServerErrorGivesUpClearly) {
    FakeHub server(repo_with_fault("model.safetensors", {{"kind", "error"}, {"status", 500}, {"times", -1}}));
    TempDir cache;
    try {
        pull(server, cache);
        FAIL() << "succeeded against a failing server";
    } catch (const hub::HubError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("gave up on model.safetensors of test/faulty after 6 attempts"), std::string::npos) << m;
        EXPECT_NE(m.find("HTTP 500"), std::string::npos) << m;
    }
    expect_only_verified_data(cache.path(), kRepo);
}

TEST(PullFaults, ServerIgnoringRangeRestartsFromZero) {
    FakeHubSpec s = repo_with_fault("model.safetensors", {{"kind", "drop"}, {"at", 50000}});
    FakeHub server(s);
    TempDir cache;
    // First a drop (leaving 50000 bytes), then every answer ignores Range.
    hub::PullOptions o = quick_pull_options();
    o.retry.max_attempts = 1;
    // One file at a time: with several, a file still in flight when the drop ends the pull keeps its
    // own partial download too (resumable, and correct), which would make the count depend on timing.
    o.parallel_files = 1;
    EXPECT_THROW(pull(server, cache, nullptr, o), hub::HubError);
    EXPECT_EQ(count_incomplete(cache.path(), kRepo), 1);
    server.set_faults({{kRepo + "/model.safetensors", {{"kind", "no_range"}, {"times", -1}}}});
    RecordingObserver obs;
    const auto res = pull(server, cache, &obs);
    EXPECT_EQ(read_file(res.snapshot_dir + "/model.safetensors"), kWeights);
    EXPECT_TRUE(obs.noticed("ignored the resume request")) << obs.all_notices();
    expect_only_verified_data(cache.path(), kRepo);
}

TEST(PullFaults, WrongContentRangeStartsOver) {
    FakeHub server(repo_with_fault("model.safetensors", {{"kind", "drop"}, {"at", 30000}}));
    TempDir cache;
    hub::PullOptions o = quick_pull_options();
    o.retry.max_attempts = 1;
    EXPECT_THROW(pull(server, cache, nullptr, o), hub::HubError);
    server.set_faults({{kRepo + "/model.safetensors", {{"kind", "bad_range"}, {"times", 1}}}});
    RecordingObserver obs;
    const auto res = pull(server, cache, &obs);
    EXPECT_EQ(read_file(res.snapshot_dir + "/model.safetensors"), kWeights);
    EXPECT_TRUE(obs.noticed("instead of bytes 30000-")) << obs.all_notices();
}

TEST(PullFaults, SlowServerFinishesWithProgressAndSpeed) {
    FakeHub server(repo_with_fault("model.safetensors", {{"kind", "slow"}, {"chunk", 20000}, {"delay", 0.05}}));
    TempDir cache;
    RecordingObserver obs;
    const auto res = pull(server, cache, &obs);
    EXPECT_EQ(read_file(res.snapshot_dir + "/model.safetensors"), kWeights);
    int partial = 0;
    bool speed = false;
    for (const auto& s : obs.statuses) {
        if (s.done_bytes > 0 && s.done_bytes < s.total_bytes) ++partial;
        for (const auto& f : s.files)
            if (f.state == hub::FileState::Downloading && f.bytes_per_second > 0 && f.eta_seconds >= 0) speed = true;
    }
    EXPECT_GE(partial, 2) << "progress was not reported while the file arrived";
    EXPECT_TRUE(speed) << "no speed or time left was reported";
}

TEST(PullFaults, StalledConnectionIsGivenUpAndResumed) {
    FakeHub server(repo_with_fault("model.safetensors", {{"kind", "stall"}, {"at", 40000}, {"seconds", 4}}));
    TempDir cache;
    hub::PullOptions o = quick_pull_options();
    o.retry.stall_timeout_s = 1;
    RecordingObserver obs;
    const auto res = pull(server, cache, &obs, o);
    EXPECT_EQ(read_file(res.snapshot_dir + "/model.safetensors"), kWeights);
    EXPECT_EQ(ranges_asked(server.log()), std::vector<std::string>{"bytes=40000-"});
}

TEST(PullFaults, CancelKeepsPartialDataAndTheNextPullResumes) {
    FakeHub server(repo_with_fault("model.safetensors", {{"kind", "slow"}, {"chunk", 10000}, {"delay", 0.05}}));
    TempDir cache;
    std::atomic<bool> cancel{false};
    struct CancelWhenStarted : RecordingObserver {
        std::atomic<bool>* cancel;
        void on_status(const hub::PullStatus& s) override {
            for (const auto& f : s.files)
                if (f.path == "model.safetensors" && f.done >= 30000) *cancel = true;
        }
    } obs;
    obs.cancel = &cancel;
    hub::PullOptions one_at_a_time = quick_pull_options();  // no other file in flight at the cancel
    one_at_a_time.parallel_files = 1;
    EXPECT_THROW(hub::pull_model(server.config(cache.path()), RepoRef{kRepo, "main"}, one_at_a_time, &obs, &cancel),
                 hub::Cancelled);
    ASSERT_EQ(count_incomplete(cache.path(), kRepo), 1);
    const std::string snap = hub::snapshot_dir(cache.path(), kRepo, kCommitA);
    EXPECT_FALSE(fs::exists(snap + "/model.safetensors"));
    uint64_t kept = 0;
    for (const auto& e : fs::directory_iterator(hub::repo_dir(cache.path(), kRepo) + "/blobs"))
        if (e.path().extension() == ".incomplete") kept = fs::file_size(e.path());
    EXPECT_GE(kept, 30000u);

    server.reset_log();
    const auto res = pull(server, cache);
    EXPECT_EQ(read_file(res.snapshot_dir + "/model.safetensors"), kWeights);
    EXPECT_EQ(ranges_asked(server.log()), std::vector<std::string>{"bytes=" + std::to_string(kept) + "-"});
}

TEST(PullFaults, CancelledDownloadCanBeDiscarded) {
    FakeHub server(repo_with_fault("model.safetensors", {{"kind", "drop"}, {"at", 60000}}));
    TempDir cache;
    hub::PullOptions o = quick_pull_options();
    o.retry.max_attempts = 1;
    EXPECT_THROW(pull(server, cache, nullptr, o), hub::HubError);
    EXPECT_EQ(hub::discard_partial_downloads(cache.path(), kRepo), 60000u);
    EXPECT_EQ(count_incomplete(cache.path(), kRepo), 0);
}

TEST(PullFaults, UnreachableServerSaysSo) {
    TempDir cache;
    hub::HubConfig config;
    config.endpoint = "http://127.0.0.1:9";  // discard port: nothing listens
    config.cache_dir = cache.path();
    hub::PullOptions o = quick_pull_options();
    o.retry.max_attempts = 2;
    try {
        hub::pull_model(config, RepoRef{kRepo, "main"}, o, nullptr, nullptr);
        FAIL();
    } catch (const hub::HubError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot reach http://127.0.0.1:9"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("HF_ENDPOINT"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace folio::test
