// Cache interoperability: a cache laid out by the hub's rules (as huggingface-cli leaves it:
// relative symlinks into blobs/, nested refs, locks, other repo types) is read as it is, removal keeps
// blobs another snapshot still uses, and what Folio writes follows the same rules byte for byte.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/core/error.h"
#include "engine/hub/cache_scan.h"
#include "engine/hub/hub_cache.h"
#include "tests/support/fixtures.h"

namespace folio::hub {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::TempDir;

// test::write_file with the folders made first.
void write_file(const std::string& path, const std::string& bytes) {
    fs::create_directories(fs::path(path).parent_path());
    test::write_file(path, bytes);
}

const std::string c1 = "1111111111111111111111111111111111111111";
const std::string c2 = "2222222222222222222222222222222222222222";
const std::string sha_a = std::string(64, 'a'), sha_b = std::string(64, 'b');
const std::string cfg = "cccccccccccccccccccccccccccccccccccccccc", sub = "dddddddddddddddddddddddddddddddddddddddd";

// What huggingface_hub leaves after downloading two revisions of org/model.
void lay_out_like_the_hub(const std::string& root) {
    const fs::path repo = fs::path(root) / "models--org--model";
    write_file((repo / "blobs" / sha_a).string(), std::string(1000, 'A'));
    write_file((repo / "blobs" / sha_b).string(), std::string(3000, 'B'));
    write_file((repo / "blobs" / cfg).string(), "{\"a\": 1}");
    write_file((repo / "blobs" / sub).string(), "{}");
    fs::create_directories(repo / "snapshots" / c1);
    fs::create_directories(repo / "snapshots" / c2 / "sub");
    fs::create_symlink("../../blobs/" + cfg, repo / "snapshots" / c1 / "config.json");
    fs::create_symlink("../../blobs/" + sha_a, repo / "snapshots" / c1 / "model.safetensors");
    fs::create_symlink("../../blobs/" + cfg, repo / "snapshots" / c2 / "config.json");
    fs::create_symlink("../../blobs/" + sha_b, repo / "snapshots" / c2 / "model.safetensors");
    fs::create_symlink("../../../blobs/" + sub, repo / "snapshots" / c2 / "sub" / "x.json");
    write_file((repo / "refs" / "main").string(), c2);
    write_file((repo / "refs" / "refs" / "pr" / "1").string(), c1);
    write_file((fs::path(root) / ".locks" / "models--org--model" / (sha_a + ".lock")).string(), "");
    write_file((fs::path(root) / "datasets--org--data" / "refs" / "main").string(), c1);
    write_file((fs::path(root) / "version.txt").string(), "1");
}

TEST(HubCache, ReadsAHubLaidOutCache) {
    TempDir root;
    lay_out_like_the_hub(root.path());
    const auto repos = scan_hub_cache(root.path());
    ASSERT_EQ(repos.size(), 1u);  // datasets, .locks and stray files are not models
    const CachedRepo& r = repos[0];
    EXPECT_EQ(r.repo_id, "org/model");
    ASSERT_EQ(r.snapshots.size(), 2u);
    EXPECT_EQ(r.size_on_disk, 1000u + 3000u + 8u + 2u);  // each blob once
    for (const auto& s : r.snapshots) {
        if (s.commit == c2) {
            EXPECT_EQ(s.refs, std::vector<std::string>{"main"});
            ASSERT_EQ(s.files.size(), 3u);
            EXPECT_EQ(s.files[2].path, "sub/x.json");
            EXPECT_EQ(s.files[2].blob, sub);
            EXPECT_EQ(s.bytes, 3000u + 8u + 2u);
        } else {
            EXPECT_EQ(s.commit, c1);
            EXPECT_EQ(s.refs, std::vector<std::string>{"refs/pr/1"});
            EXPECT_EQ(s.bytes, 1000u + 8u);
        }
    }
    EXPECT_EQ(cached_commit(root.path(), "org/model", "main"), c2);
    EXPECT_EQ(cached_commit(root.path(), "org/model", "refs/pr/1"), c1);
    EXPECT_EQ(cached_commit(root.path(), "org/model", c1), c1);
    EXPECT_EQ(cached_commit(root.path(), "org/model", "v2"), std::nullopt);
    // A snapshot file reads through its link.
    EXPECT_EQ(read_file(snapshot_dir(root.path(), "org/model", c2) + "/config.json"), "{\"a\": 1}");
}

TEST(HubCache, RemovingOneSnapshotKeepsSharedBlobs) {
    TempDir root;
    lay_out_like_the_hub(root.path());
    const RemovalReport rep = remove_cached_repo(root.path(), "org/model", "refs/pr/1");
    EXPECT_EQ(rep.snapshots_removed, std::vector<std::string>{c1});
    EXPECT_EQ(rep.refs_removed, std::vector<std::string>{"refs/pr/1"});
    EXPECT_EQ(rep.blobs_removed, 1);  // sha_a
    EXPECT_EQ(rep.blobs_kept, 1);     // config.json's blob, still used by c2
    EXPECT_EQ(rep.bytes_freed, 1000u);
    const fs::path blobs = fs::path(root.path()) / "models--org--model" / "blobs";
    EXPECT_FALSE(fs::exists(blobs / sha_a));
    EXPECT_TRUE(fs::exists(blobs / cfg));
    EXPECT_EQ(read_file(snapshot_dir(root.path(), "org/model", c2) + "/config.json"), "{\"a\": 1}");

    const RemovalReport all = remove_cached_repo(root.path(), "org/model", "");
    EXPECT_EQ(all.bytes_freed, 3000u + 8u + 2u);
    EXPECT_FALSE(fs::exists(fs::path(root.path()) / "models--org--model"));
    EXPECT_TRUE(scan_hub_cache(root.path()).empty());
}

TEST(HubCache, RemovalRefusesUnknownAndBusy) {
    TempDir root;
    lay_out_like_the_hub(root.path());
    EXPECT_THROW(remove_cached_repo(root.path(), "org/other", ""), Error);
    try {
        remove_cached_repo(root.path(), "org/model", "v9");
        FAIL() << "removed a revision that is not there";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no snapshot for 'v9'"), std::string::npos) << e.what();
    }
    FileLock busy(lock_path(root.path(), "org/model", sha_a), nullptr);
    try {
        remove_cached_repo(root.path(), "org/model", "");
        FAIL() << "removed a repository under a running download";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("download of org/model is running"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::exists(fs::path(root.path()) / "models--org--model" / "blobs" / sha_a));
}

TEST(HubCache, FolioWritesTheSameLayout) {
    TempDir root;
    write_file(blob_path(root.path(), "org/model", sha_a), "A");
    link_snapshot_file(root.path(), "org/model", c1, "model.safetensors", sha_a);
    link_snapshot_file(root.path(), "org/model", c1, "sub/dir/x.json", sha_a);
    const fs::path snap = snapshot_dir(root.path(), "org/model", c1);
    EXPECT_EQ(fs::read_symlink(snap / "model.safetensors").string(), "../../blobs/" + sha_a);
    EXPECT_EQ(fs::read_symlink(snap / "sub/dir/x.json").string(), "../../../../blobs/" + sha_a);
    EXPECT_EQ(read_file((snap / "sub/dir/x.json").string()), "A");
    // Relinking replaces the link in place.
    link_snapshot_file(root.path(), "org/model", c1, "model.safetensors", sha_a);
    EXPECT_EQ(fs::read_symlink(snap / "model.safetensors").string(), "../../blobs/" + sha_a);

    write_ref(root.path(), "org/model", "main", c1);
    EXPECT_EQ(read_file(root.path() + "/models--org--model/refs/main"), c1);  // no newline, as huggingface_hub
    write_ref(root.path(), "org/model", c2, c2);                              // a commit needs no ref
    EXPECT_FALSE(fs::exists(root.path() + "/models--org--model/refs/" + c2));
    write_ref(root.path(), "org/model", "refs/pr/7", c2);
    EXPECT_EQ(read_ref(root.path(), "org/model", "refs/pr/7"), c2);
}

}  // namespace
}  // namespace folio::hub
