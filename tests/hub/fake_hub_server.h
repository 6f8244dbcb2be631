#pragma once
// The fake Hub (tests/hub/fake_hub.py) from C++ tests: describe repositories and faults, start it on
// two free loopback ports, point a HubConfig at it, read back which requests it saw.
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/hub/hub_config.h"
#include "tests/support/fixtures.h"

namespace folio::test {

inline const std::string kCommitA = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
inline const std::string kCommitB = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2";

// Bytes that differ from file to file (a seeded generator), for weights.
std::string pseudo_random_bytes(size_t n, uint32_t seed);

class FakeHubSpec {
public:
    // Adds a file to `commit` of `repo`; a repository's first commit becomes its "main".
    FakeHubSpec& file(const std::string& repo, const std::string& path, const std::string& bytes, bool lfs,
                      const std::string& commit = kCommitA);
    FakeHubSpec& ref(const std::string& repo, const std::string& name, const std::string& commit);
    // Any other field of a repository: gated_token, tags, downloads, safetensors, page_size,
    // relative_redirect, gated.
    FakeHubSpec& repo_field(const std::string& repo, const std::string& key, const nlohmann::json& value);
    // A file listed with another size than its bytes (the tree says `size`).
    FakeHubSpec& listed_size(const std::string& repo, const std::string& path, uint64_t size,
                             const std::string& commit = kCommitA);
    // key: "org/name/path" or "org/name/@api"; see fake_hub.py for the kinds.
    FakeHubSpec& fault(const std::string& key, const nlohmann::json& fault);

    // The JSON for fake_hub.py, with every file's bytes written under `dir`.
    nlohmann::json write(const std::string& dir) const;

private:
    struct FileSpec {
        std::string bytes;
        bool lfs = false;
        int64_t listed_size = -1;
    };
    std::map<std::string, std::map<std::string, std::map<std::string, FileSpec>>> files_;  // repo -> commit -> path
    std::map<std::string, nlohmann::json> repo_fields_;
    nlohmann::json faults_ = nlohmann::json::object();
};

class FakeHub {
public:
    explicit FakeHub(const FakeHubSpec& spec);
    ~FakeHub();
    FakeHub(const FakeHub&) = delete;
    FakeHub& operator=(const FakeHub&) = delete;

    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(hub_port_); }
    int hub_port() const { return hub_port_; }
    int cdn_port() const { return cdn_port_; }

    // Every request so far: [{server: "hub"|"cdn", method, path, range, authorization}].
    nlohmann::json log() const;
    void set_faults(const nlohmann::json& faults);
    void reset_log();

    // A HubConfig for this server with its cache in `cache_dir`, no token, online.
    hub::HubConfig config(const std::string& cache_dir) const;

private:
    TempDir dir_;
    int pid_ = -1;
    int stdin_fd_ = -1;
    int hub_port_ = 0, cdn_port_ = 0;
};

// The requests of a log made to `server` whose path contains `fragment`.
int count_requests(const nlohmann::json& log, const std::string& server, const std::string& fragment);

}  // namespace folio::test
