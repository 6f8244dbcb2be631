#pragma once
// What the hub cache holds, and taking it out again: repositories, their snapshots (with the refs
// that point at them) and blobs, counted once however many snapshots share them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace folio::hub {

struct CachedFile {
    std::string path;          // inside the snapshot
    std::string blob;          // the blob's name (etag); "" when the snapshot holds a plain file
    uint64_t size = 0;
    bool dangling = false;     // a link whose blob is gone
};

struct CachedSnapshot {
    std::string commit;
    std::string dir;                 // absolute path of snapshots/<commit>
    std::vector<std::string> refs;   // "main", "v1.0" ...
    std::vector<CachedFile> files;
    uint64_t bytes = 0;              // its files' sizes, each blob once
};

struct CachedRepo {
    std::string repo_id;
    std::string dir;
    std::vector<CachedSnapshot> snapshots;  // newest first (by the folder's modification time)
    uint64_t size_on_disk = 0;              // blobs (each once) and partial downloads
    uint64_t incomplete_bytes = 0;          // in *.incomplete files
};

// Every model repository in the cache (datasets and spaces are left out), by repo id. A missing
// root is an empty cache. Folders that do not follow the layout are skipped.
std::vector<CachedRepo> scan_hub_cache(const std::string& root);
std::optional<CachedRepo> scan_cached_repo(const std::string& root, const std::string& repo_id);

struct RemovalReport {
    std::vector<std::string> snapshots_removed;  // commits
    std::vector<std::string> refs_removed;
    int blobs_removed = 0;
    int blobs_kept = 0;        // still used by a snapshot that stays
    uint64_t bytes_freed = 0;
};

// Removes a repository from the cache: everything when `revision` is empty, else the one snapshot
// it names (a commit or a ref), the refs pointing at it and each blob no other snapshot uses. Throws
// folio::Error when the repository or revision is not in the cache, or when a download of it is
// running (its lock is held).
RemovalReport remove_cached_repo(const std::string& root, const std::string& repo_id, const std::string& revision);

}  // namespace folio::hub
