#pragma once
// The Hugging Face hub cache layout (huggingface.co/docs/hub/local-cache), shared with
// huggingface-cli, transformers, vLLM and llama.cpp:
//   <root>/models--org--name/blobs/<etag>                 file contents, named by sha256 or git sha1
//   <root>/models--org--name/blobs/<etag>.incomplete      a download in progress (resumable)
//   <root>/models--org--name/snapshots/<commit>/<path>    relative symlinks into blobs/
//   <root>/models--org--name/refs/<revision>              the commit a branch or tag pointed to
//   <root>/.locks/models--org--name/<etag>.lock           held while a blob is being written
// A file appears in a snapshot only once its blob is complete and verified.
#include <atomic>
#include <optional>
#include <string>

namespace folio::hub {

std::string repo_dir(const std::string& root, const std::string& repo_id);
std::string blob_path(const std::string& root, const std::string& repo_id, const std::string& etag);
std::string incomplete_path(const std::string& root, const std::string& repo_id, const std::string& etag);
std::string snapshot_dir(const std::string& root, const std::string& repo_id, const std::string& commit);
std::string locks_dir(const std::string& root, const std::string& repo_id);
std::string lock_path(const std::string& root, const std::string& repo_id, const std::string& etag);

// The commit refs/<revision> names, or nullopt when there is no such ref (or it does not hold a
// commit hash).
std::optional<std::string> read_ref(const std::string& root, const std::string& repo_id, const std::string& revision);
// Writes refs/<revision> (atomically: a temporary file renamed over it). Throws folio::Error.
void write_ref(const std::string& root, const std::string& repo_id, const std::string& revision, const std::string& commit);

// The commit a revision stands for in the cache: itself when it is a commit hash with a snapshot,
// else what its ref says; nullopt when the cache does not know it.
std::optional<std::string> cached_commit(const std::string& root, const std::string& repo_id, const std::string& revision);

// Makes snapshots/<commit>/<path> a relative symlink to blobs/<etag> (replacing what was there,
// atomically). Throws folio::Error.
void link_snapshot_file(const std::string& root, const std::string& repo_id, const std::string& commit,
                        const std::string& path, const std::string& etag);

// Writes a whole file atomically (temporary file in the same folder, fsync, rename). Throws.
void write_file_atomically(const std::string& path, const std::string& bytes);

// An exclusive lock on a lock file (flock), held for the object's life. Waiting polls `cancel`.
class FileLock {
public:
    // Blocks until the lock is held; throws Cancelled when `cancel` is raised while waiting, or
    // folio::Error when the lock file cannot be made.
    FileLock(const std::string& path, const std::atomic<bool>* cancel);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

    // True when someone holds the lock now (the file exists and cannot be locked without waiting).
    static bool held_elsewhere(const std::string& path);

private:
    int fd_ = -1;
};

}  // namespace folio::hub
