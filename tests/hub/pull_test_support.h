#pragma once
// Shared by the pull tests: quick retries, an observer that keeps everything, and the check that the
// cache holds only verified data.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/hub/content_hash.h"
#include "engine/hub/hub_cache.h"
#include "engine/hub/pull.h"

namespace folio::test {

inline hub::PullOptions quick_pull_options() {
    hub::PullOptions o;
    o.retry.base_delay = std::chrono::milliseconds(5);
    o.retry.max_delay = std::chrono::milliseconds(20);
    o.retry.max_attempts = 6;
    o.retry.stall_timeout_s = 2;
    return o;
}

struct RecordingObserver : hub::PullObserver {
    std::vector<hub::PullStatus> statuses;
    std::vector<std::string> notices;
    void on_status(const hub::PullStatus& s) override { statuses.push_back(s); }
    void on_notice(const std::string& n) override { notices.push_back(n); }
    bool noticed(const std::string& fragment) const {
        for (const auto& n : notices)
            if (n.find(fragment) != std::string::npos) return true;
        return false;
    }
    std::string all_notices() const {
        std::string s;
        for (const auto& n : notices) s += n + "\n";
        return s;
    }
};

// Nothing under the repository's folder that a load could trust without verification: no partial
// file has a blob's name, every blob's name is its content's hash, every snapshot entry is a link to
// an existing blob.
inline void expect_only_verified_data(const std::string& root, const std::string& repo_id) {
    namespace fs = std::filesystem;
    const fs::path repo = hub::repo_dir(root, repo_id);
    std::error_code ec;
    if (fs::is_directory(repo / "blobs", ec))
        for (const auto& e : fs::directory_iterator(repo / "blobs")) {
            const std::string name = e.path().filename().string();
            if (e.path().extension() == ".incomplete") continue;
            const auto size = fs::file_size(e.path());
            const auto kind = name.size() == 64 ? hub::ContentHash::Kind::Sha256 : hub::ContentHash::Kind::GitBlobSha1;
            EXPECT_EQ(hub::hash_file(kind, e.path().string(), size), name) << "blob " << name << " is not what its name says";
        }
    if (fs::is_directory(repo / "snapshots", ec))
        for (const auto& e : fs::recursive_directory_iterator(repo / "snapshots")) {
            if (e.is_directory() && !e.is_symlink()) continue;
            ASSERT_TRUE(e.is_symlink()) << e.path() << " is not a link into blobs/";
            EXPECT_TRUE(fs::exists(e.path())) << e.path() << " dangles";
            EXPECT_NE(fs::read_symlink(e.path()).string().find("blobs/"), std::string::npos);
            EXPECT_EQ(fs::read_symlink(e.path()).string().find(".incomplete"), std::string::npos);
        }
}

inline int count_incomplete(const std::string& root, const std::string& repo_id) {
    namespace fs = std::filesystem;
    int n = 0;
    std::error_code ec;
    const fs::path blobs = fs::path(hub::repo_dir(root, repo_id)) / "blobs";
    if (fs::is_directory(blobs, ec))
        for (const auto& e : fs::directory_iterator(blobs))
            if (e.path().extension() == ".incomplete") ++n;
    return n;
}

}  // namespace folio::test
