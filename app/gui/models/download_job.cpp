#include "app/gui/models/download_job.h"

#include "engine/hub/blob_download.h"

namespace folio::app {

namespace {

struct Forward : hub::PullObserver {
    const DownloadJob::Callbacks* c;
    void on_status(const hub::PullStatus& s) override {
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
            const uint64_t freed = hub::discard_partial_downloads(config_.cache_dir, ref_.repo_id);
            message = "deleted " + hub::human_bytes(double(freed)) + " of partial data";
        }
    } catch (const std::exception& e) {
        outcome = Outcome::Failed;
        message = e.what();
    }
    if (callbacks_.finished) callbacks_.finished(outcome, message, path);
}

}  // namespace folio::app
