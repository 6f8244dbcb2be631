#include "app/gui/models/download_job.h"

#include "engine/core/error.h"
#include "engine/hub/blob_download.h"
#include "engine/hub/cache_scan.h"

namespace folio::app {

namespace {

struct Forward : hub::PullObserver {
    const DownloadJob::Callbacks* c;
    std::string commit;  // the snapshot being filled, once the listing named it
    void on_status(const hub::PullStatus& s) override {
        commit = s.commit;
        if (c->status) c->status(s);
    }
    void on_notice(const std::string& n) override {
        if (c->notice) c->notice(n);
    }
};

}  // namespace

DownloadJob::DownloadJob(hub::HubConfig config, hub::RepoRef ref, hub::PullOptions options, Callbacks callbacks)
    : config_(std::move(config)), ref_(std::move(ref)), options_(std::move(options)), callbacks_(std::move(callbacks)) {
    thread_ = std::thread([this] { run(); });
}

DownloadJob::~DownloadJob() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
}

uint64_t DownloadJob::discard(const std::string& cache_dir, const std::string& repo_id, const std::string& commit) {
    uint64_t freed = hub::discard_partial_downloads(cache_dir, repo_id);
    if (commit.empty()) return freed;
    try {
        freed += hub::remove_cached_repo(cache_dir, repo_id, commit).bytes_freed;
    } catch (const Error&) {
        // Not in the cache (nothing was linked yet), or another download of it holds the lock: that
        // one finishes it.
    }
    return freed;
}

void DownloadJob::run() {
    Forward observer;
    observer.c = &callbacks_;
    Outcome outcome = Outcome::Done;
    std::string message, path;
    try {
        path = hub::pull_model(config_, ref_, options_, &observer, &stop_).snapshot_dir;
    } catch (const hub::Cancelled&) {
        outcome = discard_ ? Outcome::Cancelled : Outcome::Paused;
        if (discard_) {
            const uint64_t freed = discard(config_.cache_dir, ref_.repo_id, observer.commit);
            message = "deleted " + hub::human_bytes(double(freed)) + " of partial data";
        }
    } catch (const std::exception& e) {
        outcome = Outcome::Failed;
        message = e.what();
    }
    if (callbacks_.finished) callbacks_.finished(outcome, message, path);
}

}  // namespace folio::app
