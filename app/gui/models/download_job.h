#pragma once
// One download (a pull of a repository) on a thread of its own, stoppable at any time: pausing keeps
// the partial data for a later resume, cancelling deletes it. Callbacks run on the job's thread.
#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "engine/hub/pull.h"

namespace folio::app {

class DownloadJob {
public:
    enum class Outcome { Done, Paused, Cancelled, Failed };
    struct Callbacks {
        std::function<void(const hub::PullStatus&)> status;
        std::function<void(const std::string&)> notice;
        // message: the error (Failed) or what was freed (Cancelled); path: the snapshot folder (Done).
        std::function<void(Outcome, const std::string& message, const std::string& path)> finished;
    };

    // Starts at once.
    DownloadJob(hub::HubConfig config, hub::RepoRef ref, hub::PullOptions options, Callbacks callbacks);
    // Stops (keeping partial data) and waits for the thread.
    ~DownloadJob();
    DownloadJob(const DownloadJob&) = delete;
    DownloadJob& operator=(const DownloadJob&) = delete;

    // What cancelling deletes: the repository's partial blobs and, when `commit` is known, the snapshot
    // the pull was filling (an unfinished snapshot must not pass for a model; blobs another snapshot
    // uses stay). Returns the bytes freed.
    static uint64_t discard(const std::string& cache_dir, const std::string& repo_id, const std::string& commit);

    void pause() { stop_ = true; }
    void cancel() {
        discard_ = true;
        stop_ = true;
    }

private:
    void run();

    hub::HubConfig config_;
    hub::RepoRef ref_;
    hub::PullOptions options_;
    Callbacks callbacks_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> discard_{false};
    std::thread thread_;
};

}  // namespace folio::app
