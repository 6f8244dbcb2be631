// A pull against the fake Hub: files land in the hub cache by its rules, the token never leaves the
// Hub's origin, a second pull fetches nothing, filters and pagination work, concurrent pulls share.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "engine/core/error.h"
#include "engine/hub/cache_scan.h"
#include "engine/hub/hub_cache.h"
#include "engine/hub/pull.h"
#include "tests/hub/fake_hub_server.h"
#include "tests/hub/pull_test_support.h"

namespace folio::test {
namespace {

namespace fs = std::filesystem;
using hub::RepoRef;

const std::string kRepo = "test/model";

struct SmallRepo {
    std::string config = R"({"architectures": ["LlamaForCausalLM"]})";
    std::string weights = pseudo_random_bytes(300000, 1);
    std::string extra = "{\"x\": 1}";
    FakeHubSpec spec() const {
        FakeHubSpec s;
        s.file(kRepo, "config.json", config, false)
            .file(kRepo, "model.safetensors", weights, true)
            .file(kRepo, "sub/extra.json", extra, false);
        return s;
    }
};

TEST(Pull, LaysOutTheCacheLikeTheHub) {
    SmallRepo r;
    FakeHub server(r.spec());
    TempDir cache;
    hub::HubConfig config = server.config(cache.path());
    config.token = "hf_public";  // sent to the hub, never to the CDN
    RecordingObserver obs;
    const hub::PullResult res = hub::pull_model(config, RepoRef{kRepo, "main"}, quick_pull_options(), &obs, nullptr);

    EXPECT_EQ(res.commit, kCommitA);
    EXPECT_EQ(res.snapshot_dir, cache.path() + "/models--test--model/snapshots/" + kCommitA);
    EXPECT_EQ(res.files, 3);
    EXPECT_EQ(res.files_cached, 0);
    EXPECT_EQ(read_file(res.snapshot_dir + "/config.json"), r.config);
    EXPECT_EQ(read_file(res.snapshot_dir + "/model.safetensors"), r.weights);
    EXPECT_EQ(read_file(res.snapshot_dir + "/sub/extra.json"), r.extra);
    EXPECT_EQ(read_file(cache.path() + "/models--test--model/refs/main"), kCommitA);
    EXPECT_EQ(count_incomplete(cache.path(), kRepo), 0);
    expect_only_verified_data(cache.path(), kRepo);
    // The weights' blob is named by its sha256, the small files' by their git blob sha1.
    const std::string link = fs::read_symlink(res.snapshot_dir + "/model.safetensors").string();
    EXPECT_EQ(link, "../../blobs/" + hub::hash_file(hub::ContentHash::Kind::Sha256, res.snapshot_dir + "/model.safetensors", r.weights.size()));
    EXPECT_TRUE(fs::exists(cache.path() + "/.locks/models--test--model"));

    const auto log = server.log();
    int cdn = 0;
    for (const auto& e : log) {
        if (e["server"] == "cdn") {
            ++cdn;
            EXPECT_TRUE(e["authorization"].is_null()) << "the token went to the CDN: " << e.dump();
        } else {
            EXPECT_EQ(e["authorization"], "Bearer hf_public") << e.dump();
        }
    }
    EXPECT_EQ(cdn, 1);
    ASSERT_FALSE(obs.statuses.empty());
    const hub::PullStatus& last = obs.statuses.back();
    EXPECT_EQ(last.total_bytes, r.config.size() + r.weights.size() + r.extra.size());
    EXPECT_EQ(last.done_bytes, last.total_bytes);
    for (const auto& f : last.files) EXPECT_EQ(f.state, hub::FileState::Done) << f.path;
}

TEST(Pull, SecondPullFetchesNothing) {
    SmallRepo r;
    FakeHub server(r.spec());
    TempDir cache;
    hub::pull_model(server.config(cache.path()), RepoRef{kRepo, "main"}, quick_pull_options(), nullptr, nullptr);
    server.reset_log();
    const hub::PullResult again = hub::pull_model(server.config(cache.path()), RepoRef{kRepo, "main"}, quick_pull_options(), nullptr, nullptr);
    EXPECT_EQ(again.files_cached, 3);
    EXPECT_EQ(again.bytes_fetched, 0u);
    const auto log = server.log();
    EXPECT_EQ(count_requests(log, "hub", "/resolve/"), 0) << log.dump();
    EXPECT_EQ(count_requests(log, "cdn", "/cdn/"), 0);
}

TEST(Pull, IncludeExcludeAndFormatsFolioCannotRead) {
    FakeHubSpec spec;
    spec.file(kRepo, "config.json", "{}", false)
        .file(kRepo, "model.safetensors", "w", true)
        .file(kRepo, "consolidated.safetensors", "dup", true)
        .file(kRepo, "pytorch_model.bin", "bin", true)
        .file(kRepo, "original/params.json", "{\"dim\": 1}", false)
        .file(kRepo, "tokenizer.json", "{\"tok\": 1}", false);
    FakeHub server(spec);
    TempDir cache;
    RecordingObserver obs;
    auto res = hub::pull_model(server.config(cache.path()), RepoRef{kRepo, "main"}, quick_pull_options(), &obs, nullptr);
    EXPECT_EQ(res.files, 3);  // config, model.safetensors, tokenizer.json
    EXPECT_FALSE(fs::exists(res.snapshot_dir + "/pytorch_model.bin"));
    EXPECT_FALSE(fs::exists(res.snapshot_dir + "/consolidated.safetensors"));
    EXPECT_FALSE(fs::exists(res.snapshot_dir + "/original/params.json"));
    ASSERT_FALSE(obs.statuses.empty());
    EXPECT_EQ(obs.statuses.back().skipped.size(), 3u);

    hub::PullOptions only = quick_pull_options();
    only.include = {"*.json"};
    only.exclude = {"original/*"};
    TempDir cache2;
    res = hub::pull_model(server.config(cache2.path()), RepoRef{kRepo, "main"}, only, nullptr, nullptr);
    EXPECT_EQ(res.files, 2);
    EXPECT_TRUE(fs::exists(res.snapshot_dir + "/tokenizer.json"));
    EXPECT_FALSE(fs::exists(res.snapshot_dir + "/model.safetensors"));

    hub::PullOptions all = quick_pull_options();
    all.all_files = true;
    res = hub::pull_model(server.config(cache2.path()), RepoRef{kRepo, "main"}, all, nullptr, nullptr);
    EXPECT_EQ(res.files, 6);
    EXPECT_EQ(res.files_cached, 2);  // the two JSON files from the pull before

    hub::PullOptions none = quick_pull_options();
    none.include = {"*.gguf"};
    try {
        hub::pull_model(server.config(cache2.path()), RepoRef{kRepo, "main"}, none, nullptr, nullptr);
        FAIL() << "a pull of nothing succeeded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no file matches the --include patterns"), std::string::npos) << e.what();
    }
}

TEST(Pull, PaginatedListingAndRelativeRedirects) {
    FakeHubSpec spec;
    for (int i = 0; i < 5; ++i) spec.file(kRepo, "f" + std::to_string(i) + ".json", std::to_string(i), false);
    spec.repo_field(kRepo, "page_size", 2).repo_field(kRepo, "relative_redirect", true);
    FakeHub server(spec);
    TempDir cache;
    hub::HubConfig config = server.config(cache.path());
    config.token = "hf_x";
    const auto res = hub::pull_model(config, RepoRef{kRepo, "main"}, quick_pull_options(), nullptr, nullptr);
    EXPECT_EQ(res.files, 5);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(read_file(res.snapshot_dir + "/f" + std::to_string(i) + ".json"), std::to_string(i));
    const auto log = server.log();
    EXPECT_EQ(count_requests(log, "hub", "cursor="), 2);  // three pages
    EXPECT_EQ(count_requests(log, "hub", "/api/resolve-cache/"), 5);
    for (const auto& e : log)  // same origin: the token follows the relative redirect
        if (e["path"].get<std::string>().find("/api/resolve-cache/") != std::string::npos) {
            EXPECT_EQ(e["authorization"], "Bearer hf_x");
        }
}

TEST(Pull, TwoRevisionsShareBlobsAndTagsGetRefs) {
    FakeHubSpec spec;
    const std::string shared = pseudo_random_bytes(5000, 7);
    spec.file(kRepo, "model.safetensors", shared, true, kCommitA)
        .file(kRepo, "config.json", "{\"v\": 1}", false, kCommitA)
        .file(kRepo, "model.safetensors", shared, true, kCommitB)
        .file(kRepo, "config.json", "{\"v\": 2}", false, kCommitB)
        .ref(kRepo, "main", kCommitB)
        .ref(kRepo, "v1", kCommitA);
    FakeHub server(spec);
    TempDir cache;
    const auto main = hub::pull_model(server.config(cache.path()), RepoRef{kRepo, "main"}, quick_pull_options(), nullptr, nullptr);
    const auto v1 = hub::pull_model(server.config(cache.path()), RepoRef{kRepo, "v1"}, quick_pull_options(), nullptr, nullptr);
    EXPECT_EQ(main.commit, kCommitB);
    EXPECT_EQ(v1.commit, kCommitA);
    EXPECT_EQ(v1.files_cached, 1);  // the weights' blob was there
    EXPECT_EQ(read_file(cache.path() + "/models--test--model/refs/v1"), kCommitA);
    const auto by_commit = hub::pull_model(server.config(cache.path()), RepoRef{kRepo, kCommitA}, quick_pull_options(), nullptr, nullptr);
    EXPECT_EQ(by_commit.files_cached, 2);
    EXPECT_FALSE(fs::exists(cache.path() + "/models--test--model/refs/" + kCommitA));

    const auto removed = hub::remove_cached_repo(cache.path(), kRepo, "v1");
    EXPECT_EQ(removed.blobs_kept, 1);
    EXPECT_EQ(read_file(main.snapshot_dir + "/model.safetensors"), shared);
    expect_only_verified_data(cache.path(), kRepo);
}

TEST(Pull, ConcurrentPullsOfOneRepositoryFetchEachBlobOnce) {
    FakeHubSpec spec;
    const std::string weights = pseudo_random_bytes(400000, 3);
    spec.file(kRepo, "model.safetensors", weights, true).fault(kRepo + "/model.safetensors", {{"kind", "slow"}, {"chunk", 50000}, {"delay", 0.02}, {"times", -1}});
    FakeHub server(spec);
    TempDir cache;
    hub::PullResult a, b;
    std::thread t([&] { a = hub::pull_model(server.config(cache.path()), RepoRef{kRepo, "main"}, quick_pull_options(), nullptr, nullptr); });
    b = hub::pull_model(server.config(cache.path()), RepoRef{kRepo, "main"}, quick_pull_options(), nullptr, nullptr);
    t.join();
    EXPECT_EQ(read_file(a.snapshot_dir + "/model.safetensors"), weights);
    EXPECT_EQ(a.files_cached + b.files_cached, 1);  // one waited on the lock, then found the blob
    EXPECT_EQ(count_requests(server.log(), "cdn", "/cdn/"), 1);
}

TEST(Pull, RefusesWhenTheDiskIsTooSmall) {
    FakeHubSpec spec;
    spec.file(kRepo, "config.json", "{}", false).file(kRepo, "model.safetensors", "tiny", true)
        .listed_size(kRepo, "model.safetensors", uint64_t(1) << 60);  // an exabyte
    FakeHub server(spec);
    TempDir cache;
    try {
        hub::pull_model(server.config(cache.path()), RepoRef{kRepo, "main"}, quick_pull_options(), nullptr, nullptr);
        FAIL() << "started a download that cannot fit";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("not enough free disk space for test/model"), std::string::npos) << m;
        EXPECT_NE(m.find("HF_HUB_CACHE"), std::string::npos) << m;
    }
    EXPECT_EQ(count_requests(server.log(), "hub", "/resolve/"), 0);  // nothing was fetched
}

}  // namespace
}  // namespace folio::test
