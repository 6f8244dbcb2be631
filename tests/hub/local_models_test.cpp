// The library: snapshots in the hub cache (laid out as any hub client leaves them) and opened
// folders, each with what it is and its size; the catalog file in resources/ is valid.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/core/error.h"
#include "engine/hub/catalog.h"
#include "engine/hub/content_hash.h"
#include "engine/hub/fit_estimate.h"
#include "engine/hub/hub_cache.h"
#include "engine/hub/local_models.h"
#include "tests/support/fixtures.h"

namespace folio::hub {
namespace {

namespace fs = std::filesystem;
using test::fixture_path;
using test::TempDir;

const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";

// Puts a fixture model into a cache the way the hub lays it out.
void cache_fixture(const std::string& root, const std::string& repo_id, const std::string& fixture) {
    for (const auto& e : fs::directory_iterator(fixture_path(fixture))) {
        const std::string data = test::read_file(e.path().string());
        ContentHash h(ContentHash::Kind::Sha256, data.size());
        h.update(data.data(), data.size());
        const std::string etag = h.hex_digest();
        fs::create_directories(fs::path(blob_path(root, repo_id, etag)).parent_path());
        test::write_file(blob_path(root, repo_id, etag), data);
        link_snapshot_file(root, repo_id, kCommit, e.path().filename().string(), etag);
    }
    write_ref(root, repo_id, "main", kCommit);
}

TEST(LocalModels, ListsCacheSnapshotsAndFolders) {
    TempDir cache;
    cache_fixture(cache.path(), "karpathy/stories260K", "models/stories260K");
    const std::string folder = fixture_path("models/tiny-awq");
    const std::string inside_cache = snapshot_dir(cache.path(), "karpathy/stories260K", kCommit);
    const auto models = list_local_models(cache.path(), {folder, "/no/such/folder", inside_cache});
    ASSERT_EQ(models.size(), 2u);  // the folder that is gone and the one already in the cache are left out

    const LocalModel& hub = models[0];
    EXPECT_EQ(hub.name, "karpathy/stories260K");
    EXPECT_TRUE(hub.from_cache);
    EXPECT_EQ(hub.commit, kCommit);
    EXPECT_EQ(hub.refs, std::vector<std::string>{"main"});
    EXPECT_EQ(hub.path, inside_cache);
    EXPECT_EQ(hub.summary.family, "Llama");
    EXPECT_EQ(hub.summary.problem, "");
    uint64_t fixture_bytes = 0;
    for (const auto& e : fs::directory_iterator(fixture_path("models/stories260K"))) fixture_bytes += fs::file_size(e.path());
    EXPECT_EQ(hub.size_on_disk, fixture_bytes);

    const LocalModel& dir = models[1];
    EXPECT_EQ(dir.name, "tiny-awq");
    EXPECT_FALSE(dir.from_cache);
    EXPECT_EQ(dir.summary.format, "AWQ 4-bit g128");
    EXPECT_GT(dir.size_on_disk, 0u);
}

std::string catalog_path() { return std::string(FOLIO_SOURCE_DIR) + "/resources/catalog/recommended.json"; }

TEST(Catalog, TheShippedCatalogIsValidAndEveryEntryHasAnEstimate) {
    const Catalog c = parse_catalog(test::read_file(catalog_path()), catalog_path());
    EXPECT_FALSE(c.title.empty());
    ASSERT_GE(c.models.size(), 4u);
    std::set<std::string> seen;
    const MemoryBudget card = memory_budget("a 24 GB card", true, 24ull << 30, 24ull << 30);
    for (const auto& m : c.models) {
        EXPECT_TRUE(seen.insert(m.repo_id).second) << m.repo_id << " twice";
        const FitEstimate f = estimate_fit(catalog_summary(m), card, 8192);
        EXPECT_TRUE(f.known) << m.repo_id;
        EXPECT_TRUE(f.fits) << m.repo_id << ": " << f.verdict;  // the catalog is for such a card
    }
}

TEST(Catalog, BadEntriesNameTheFieldAndEntry) {
    auto error = [](const std::string& text) {
        try {
            parse_catalog(text, "cat.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_NE(error("[]").find("\"models\" list"), std::string::npos);
    EXPECT_NE(error(R"({"models": [{"family": "x"}]})").find("models[0]: missing \"repo\""), std::string::npos);
    EXPECT_NE(error(R"({"models": [{"repo": "a/b/c", "family": "x", "format": "y", "size_bytes": 1, "config": {}}]})")
                  .find("models[0]: 'a/b/c'"),
              std::string::npos);
    EXPECT_NE(error(R"({"models": [{"repo": "a/b", "family": "x", "format": "y", "size_bytes": 1, "config": {}}]})")
                  .find("num_hidden_layers"),
              std::string::npos);
}

}  // namespace
}  // namespace folio::hub
