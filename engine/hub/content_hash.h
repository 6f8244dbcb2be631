#pragma once
// The hashes the Hub names its files by, computed while bytes arrive: sha256 of the content for LFS
// files, and git's blob sha1 (sha1 of "blob <size>\0" + content) for files kept in git.
#include <cstdint>
#include <memory>
#include <string>

namespace folio::hub {

class ContentHash {
public:
    enum class Kind { Sha256, GitBlobSha1 };
    // For GitBlobSha1 the content's total size goes into the header, so it must be known up front.
    ContentHash(Kind kind, uint64_t total_size);
    ~ContentHash();
    ContentHash(const ContentHash&) = delete;
    ContentHash& operator=(const ContentHash&) = delete;

    void update(const void* data, size_t size);
    std::string hex_digest();  // lower-case hex; the hash cannot be updated after this

    // Hashes `size` bytes of the file from its start (resuming a download hashes what is already
    // there). Throws folio::Error when the file cannot be read that far.
    void update_from_file(const std::string& path, uint64_t size);

private:
    struct State;
    std::unique_ptr<State> s_;
};

// The hash of a whole file, for checks of a finished blob.
std::string hash_file(ContentHash::Kind kind, const std::string& path, uint64_t size);

}  // namespace folio::hub
