// Refusals a person must act on: gated repositories (with and without a token), names and revisions
// that do not exist, and offline mode, which never touches the network.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/core/error.h"
#include "engine/hub/pull.h"
#include "tests/hub/fake_hub_server.h"
#include "tests/hub/pull_test_support.h"

namespace folio::test {
namespace {

using hub::RepoRef;

const std::string kGated = "meta-llama/Gated-8B";

FakeHubSpec gated_spec() {
    FakeHubSpec s;
    s.file(kGated, "config.json", "{}", false)
        .file(kGated, "model.safetensors", pseudo_random_bytes(10000, 5), true)
        .repo_field(kGated, "gated_token", "hf_granted");
    s.file("test/open", "config.json", "{}", false);
    return s;
}

std::string pull_error(const FakeHub& server, const std::string& cache, const std::string& token, const RepoRef& ref) {
    hub::HubConfig c = server.config(cache);
    c.token = token;
    try {
        hub::pull_model(c, ref, quick_pull_options(), nullptr, nullptr);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(PullAccess, GatedWithoutTokenSaysWhichRepoAndHowToGiveOne) {
    FakeHub server(gated_spec());
    TempDir cache;
    const std::string m = pull_error(server, cache.path(), "", RepoRef{kGated, "main"});
    EXPECT_NE(m.find("meta-llama/Gated-8B is a gated repository"), std::string::npos) << m;
    EXPECT_NE(m.find(server.endpoint() + "/meta-llama/Gated-8B"), std::string::npos) << m;  // where to accept
    EXPECT_NE(m.find("HF_TOKEN"), std::string::npos) << m;
    EXPECT_NE(m.find("huggingface-cli login"), std::string::npos) << m;
    EXPECT_NE(m.find("Hugging Face token"), std::string::npos) << m;  // the app's field
}

TEST(PullAccess, GatedWithAWrongTokenSaysTheTokenHasNoAccess) {
    FakeHub server(gated_spec());
    TempDir cache;
    const std::string m = pull_error(server, cache.path(), "hf_someone_else", RepoRef{kGated, "main"});
    EXPECT_NE(m.find("the token that was sent has no access to it"), std::string::npos) << m;
    EXPECT_NE(m.find("HTTP 403"), std::string::npos) << m;
}

TEST(PullAccess, GatedWithTheRightTokenDownloadsAndTheCdnNeverSeesIt) {
    FakeHub server(gated_spec());
    TempDir cache;
    hub::HubConfig c = server.config(cache.path());
    c.token = "hf_granted";
    const auto res = hub::pull_model(c, RepoRef{kGated, "main"}, quick_pull_options(), nullptr, nullptr);
    EXPECT_EQ(read_file(res.snapshot_dir + "/model.safetensors"), pseudo_random_bytes(10000, 5));
    for (const auto& e : server.log())
        if (e["server"] == "cdn") {
            EXPECT_TRUE(e["authorization"].is_null()) << e.dump();
        }
}

TEST(PullAccess, UnknownRepositoryAndRevision) {
    FakeHub server(gated_spec());
    TempDir cache;
    std::string m = pull_error(server, cache.path(), "", RepoRef{"test/nope", "main"});
    EXPECT_NE(m.find("test/nope does not exist on " + server.endpoint()), std::string::npos) << m;
    m = pull_error(server, cache.path(), "", RepoRef{"test/open", "v9"});
    EXPECT_NE(m.find("test/open has no branch, tag or commit by that name"), std::string::npos) << m;
    EXPECT_NE(m.find("v9"), std::string::npos) << m;
}

TEST(PullAccess, HostileListingsAreRefusedBeforeAnythingIsWritten) {
    for (const nlohmann::json& entry : {nlohmann::json{{"type", "file"}, {"path", "../../outside.json"}, {"size", 2}, {"oid", std::string(40, 'a')}},
                                        nlohmann::json{{"type", "file"}, {"path", "x.json"}, {"size", 2}, {"oid", "../../blobs/evil"}}}) {
        FakeHubSpec spec;
        spec.file("test/open", "config.json", "{}", false).repo_field("test/open", "extra_tree_entries", nlohmann::json::array({entry}));
        FakeHub server(spec);
        TempDir cache;
        const std::string m = pull_error(server, cache.path(), "", RepoRef{"test/open", "main"});
        EXPECT_TRUE(m.find("refusing the file path") != std::string::npos || m.find("no usable hash") != std::string::npos) << m;
        EXPECT_EQ(count_requests(server.log(), "hub", "/resolve/"), 0);
        EXPECT_FALSE(std::filesystem::exists(cache.path() + "/models--test--open/snapshots"));
    }
}

TEST(PullAccess, OfflineServesTheCacheAndNeverTouchesTheNetwork) {
    FakeHub server(gated_spec());
    TempDir cache;
    hub::HubConfig c = server.config(cache.path());
    const auto online = hub::pull_model(c, RepoRef{"test/open", "main"}, quick_pull_options(), nullptr, nullptr);
    server.reset_log();
    c.offline = true;
    const auto offline = hub::pull_model(c, RepoRef{"test/open", "main"}, quick_pull_options(), nullptr, nullptr);
    EXPECT_TRUE(offline.offline);
    EXPECT_EQ(offline.snapshot_dir, online.snapshot_dir);
    EXPECT_EQ(offline.files, 1);
    const std::string m = pull_error(server, cache.path(), "", RepoRef{kGated, "main"});  // online: not this one
    server.reset_log();
    try {
        hub::pull_model(c, RepoRef{kGated, "main"}, quick_pull_options(), nullptr, nullptr);
        FAIL() << "offline pull of an uncached repository succeeded";
    } catch (const hub::HubError& e) {
        EXPECT_EQ(e.kind(), hub::HubError::Kind::Offline);
        EXPECT_NE(std::string(e.what()).find("HF_HUB_OFFLINE=1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("not in the hub cache"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(server.log().empty()) << server.log().dump();
    (void)m;
}

}  // namespace
}  // namespace folio::test
