#pragma once
// Getting a model: resolve a revision, choose its files, check the disk, download them (a few at a
// time) into the hub cache and link them into snapshots/<commit>. One implementation for
// `folio-cli pull` and the app's Download page; progress comes to an observer on the caller's thread.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/hub/hub_api.h"
#include "engine/hub/hub_client.h"
#include "engine/hub/hub_config.h"
#include "engine/hub/repo_ref.h"

namespace folio::hub {

struct PullOptions {
    std::vector<std::string> include;  // shell globs over paths (fnmatch; '*' crosses '/'); empty: all
    std::vector<std::string> exclude;  // applied after include
    // Without --include, files Folio cannot read (PyTorch .bin, GGUF, ONNX, original/ checkpoints,
    // Mistral's consolidated copy) are skipped when the repository has safetensors weights; true
    // fetches every file.
    bool all_files = false;
    int parallel_files = 4;            // files downloaded at once
    RetryPolicy retry;
    uint64_t disk_reserve = 64ull << 20;  // kept free beyond what the files need
};

enum class FileState { Waiting, Downloading, Done, Cached, Failed };

struct FileStatus {
    std::string path;
    uint64_t size = 0;
    uint64_t done = 0;
    FileState state = FileState::Waiting;
    double bytes_per_second = 0;
    double eta_seconds = -1;
};

struct PullStatus {
    std::string repo_id, revision, commit;
    std::vector<FileStatus> files;       // the chosen files, in listing order
    std::vector<std::string> skipped;    // listed files left out (filters, formats Folio cannot read)
    uint64_t total_bytes = 0;            // of the chosen files
    uint64_t done_bytes = 0;
    double bytes_per_second = 0;         // over the last seconds
    double eta_seconds = -1;             // -1: unknown yet
};

// Called on the thread that runs pull_model: on_status a few times a second while bytes move and at
// every change of a file's state; on_notice for retries, mismatches and the like.
class PullObserver {
public:
    virtual ~PullObserver() = default;
    virtual void on_status(const PullStatus&) {}
    virtual void on_notice(const std::string&) {}
};

struct PullResult {
    std::string repo_id, revision, commit;
    std::string snapshot_dir;       // the folder to load
    int files = 0;                  // in the snapshot from this pull
    int files_cached = 0;           // of which were already there
    uint64_t bytes_fetched = 0;
    bool offline = false;           // served from the cache without the network (HF_HUB_OFFLINE)
};

// Throws HubError (network, access, not found, offline and not cached), folio::Error (disk space,
// verification), Cancelled (partial downloads stay and the next pull resumes them).
PullResult pull_model(const HubConfig& config, const RepoRef& ref, const PullOptions& options, PullObserver* observer,
                      const std::atomic<bool>* cancel);

// Which files of a listing a pull with these options takes (the rest go to `skipped`).
std::vector<RepoFile> select_files(const RepoListing& listing, const PullOptions& options, std::vector<std::string>* skipped);

// Bytes free for an unprivileged writer on the file system that holds `path` (or its nearest
// existing parent); nullopt when it cannot be told.
std::optional<uint64_t> free_disk_bytes(const std::string& path);

// Deletes the repository's partial downloads (blobs/*.incomplete) that no running download holds:
// what cancelling a download means, as opposed to pausing it. Returns the bytes freed.
uint64_t discard_partial_downloads(const std::string& cache_root, const std::string& repo_id);

}  // namespace folio::hub
