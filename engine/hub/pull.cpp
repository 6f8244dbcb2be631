#include "engine/hub/pull.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <fnmatch.h>
#include <map>
#include <memory>
#include <mutex>
#include <sys/statvfs.h>
#include <thread>

#include "engine/hub/blob_download.h"
#include "engine/hub/hub_cache.h"
#include "engine/hub/transfer_rate.h"

namespace folio::hub {

namespace fs = std::filesystem;

namespace {

bool matches_any(const std::vector<std::string>& globs, const std::string& path) {
    for (const auto& g : globs)
        if (::fnmatch(g.c_str(), path.c_str(), 0) == 0) return true;
    return false;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Weights in formats the engine does not read, when the repository also has safetensors.
const std::vector<std::string>& unreadable_formats() {
    static const std::vector<std::string> globs = {
        "*.bin", "*.pt", "*.pth", "*.ckpt", "*.gguf", "*.ggml", "*.onnx", "*.onnx_data", "*.h5", "*.msgpack",
        "*.ot", "*.tflite", "*.mlmodel", "*.mlpackage/*", "original/*", "onnx/*", "openvino/*", "coreml/*"};
    return globs;
}

PullResult pull_offline(const HubConfig& config, const RepoRef& ref) {
    const auto commit = cached_commit(config.cache_dir, ref.repo_id, ref.revision);
    std::error_code ec;
    if (!commit || !fs::is_directory(snapshot_dir(config.cache_dir, ref.repo_id, *commit), ec))
        throw HubError(HubError::Kind::Offline, "offline mode (HF_HUB_OFFLINE=1) and " + ref.repo_id + "@" + ref.revision +
                                                    " is not in the hub cache (" + config.cache_dir +
                                                    "): pull it once with the network, or unset HF_HUB_OFFLINE");
    PullResult r;
    r.repo_id = ref.repo_id;
    r.revision = ref.revision;
    r.commit = *commit;
    r.snapshot_dir = snapshot_dir(config.cache_dir, ref.repo_id, *commit);
    r.offline = true;
    for (auto it = fs::recursive_directory_iterator(r.snapshot_dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (!it->is_directory(ec)) ++r.files;
    r.files_cached = r.files;
    return r;
}

uint64_t incomplete_size(const std::string& root, const std::string& repo, const RepoFile& f) {
    std::error_code ec;
    const auto s = fs::file_size(incomplete_path(root, repo, f.etag()), ec);
    return ec ? 0 : std::min<uint64_t>(uint64_t(s), f.size);
}

bool blob_complete(const std::string& root, const std::string& repo, const RepoFile& f) {
    std::error_code ec;
    const auto s = fs::file_size(blob_path(root, repo, f.etag()), ec);
    return !ec && uint64_t(s) == f.size;
}

// What the workers share with the thread that reports.
struct Shared {
    std::mutex m;
    std::condition_variable cv;
    std::vector<FileState> state;
    std::unique_ptr<std::atomic<uint64_t>[]> done;
    std::deque<std::string> notices;
    std::exception_ptr error;
    bool state_changed = false;
    int running = 0;
};

}  // namespace

std::optional<uint64_t> free_disk_bytes(const std::string& path) {
    fs::path p = fs::absolute(path);
    std::error_code ec;
    while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();
    struct statvfs st{};
    if (p.empty() || ::statvfs(p.c_str(), &st) != 0) return std::nullopt;
    return uint64_t(st.f_bavail) * uint64_t(st.f_frsize);
}

std::vector<RepoFile> select_files(const RepoListing& listing, const PullOptions& options, std::vector<std::string>* skipped) {
    bool has_safetensors = false, has_model_safetensors = false;
    for (const auto& f : listing.files) {
        if (ends_with(f.path, ".safetensors")) {
            has_safetensors = true;
            if (f.path.rfind("consolidated", 0) != 0) has_model_safetensors = true;
        }
    }
    const bool prune = options.include.empty() && !options.all_files && has_safetensors;
    std::vector<RepoFile> out;
    for (const auto& f : listing.files) {
        bool take = options.include.empty() || matches_any(options.include, f.path);
        if (take && matches_any(options.exclude, f.path)) take = false;
        if (take && prune) {
            if (matches_any(unreadable_formats(), f.path)) take = false;
            if (has_model_safetensors && f.path.rfind("consolidated", 0) == 0 && ends_with(f.path, ".safetensors")) take = false;
        }
        if (take) out.push_back(f);
        else if (skipped) skipped->push_back(f.path);
    }
    return out;
}

uint64_t discard_partial_downloads(const std::string& cache_root, const std::string& repo_id) {
    uint64_t freed = 0;
    std::error_code ec;
    const fs::path blobs = fs::path(repo_dir(cache_root, repo_id)) / "blobs";
    if (!fs::is_directory(blobs, ec)) return 0;
    for (const auto& e : fs::directory_iterator(blobs, ec)) {
        if (e.path().extension() != ".incomplete") continue;
        const std::string etag = e.path().stem().string();
        if (FileLock::held_elsewhere(lock_path(cache_root, repo_id, etag))) continue;
        const auto size = fs::file_size(e.path(), ec);
        if (fs::remove(e.path(), ec)) freed += ec ? 0 : uint64_t(size);
    }
    return freed;
}

PullResult pull_model(const HubConfig& config, const RepoRef& ref, const PullOptions& options, PullObserver* observer,
                      const std::atomic<bool>* cancel) {
    check_repo_id(ref.repo_id);
    if (config.offline) return pull_offline(config, ref);
    const std::string& root = config.cache_dir;
    const RepoListing listing = list_repo_files(HubClient(config, options.retry, cancel), ref);

    PullStatus status;
    status.repo_id = ref.repo_id;
    status.revision = ref.revision;
    status.commit = listing.commit;
    const std::vector<RepoFile> files = select_files(listing, options, &status.skipped);
    if (files.empty())
        throw Error(ref.repo_id + "@" + ref.revision + ": no file matches " +
                    (options.include.empty() ? std::string("(the repository is empty)") : "the --include patterns") +
                    " (" + std::to_string(listing.files.size()) + " files listed)");
    write_ref(root, ref.repo_id, ref.revision, listing.commit);

    PullResult result;
    result.repo_id = ref.repo_id;
    result.revision = ref.revision;
    result.commit = listing.commit;
    result.snapshot_dir = snapshot_dir(root, ref.repo_id, listing.commit);
    result.files = int(files.size());

    Shared sh;
    sh.state.assign(files.size(), FileState::Waiting);
    sh.done = std::make_unique<std::atomic<uint64_t>[]>(files.size());
    uint64_t needed = 0;
    std::vector<size_t> to_fetch;
    for (size_t i = 0; i < files.size(); ++i) {
        status.files.push_back({files[i].path, files[i].size});
        status.total_bytes += files[i].size;
        if (blob_complete(root, ref.repo_id, files[i])) {
            link_snapshot_file(root, ref.repo_id, listing.commit, files[i].path, files[i].etag());
            sh.state[i] = FileState::Cached;
            sh.done[i] = files[i].size;
            ++result.files_cached;
        } else {
            sh.done[i] = incomplete_size(root, ref.repo_id, files[i]);
            needed += files[i].size - sh.done[i];
            to_fetch.push_back(i);
        }
    }
    if (auto free = free_disk_bytes(root); free && needed + options.disk_reserve > *free)
        throw Error("not enough free disk space for " + ref.repo_id + ": it needs " + human_bytes(double(needed)) +
                    " more in " + root + ", and that disk has " + human_bytes(double(*free)) +
                    " free. Free some space (folio-cli models lists what is stored, folio-cli rm removes it) or set "
                    "HF_HUB_CACHE to a folder on a larger disk");

    std::atomic<bool> stop{false};
    const HubClient client(config, options.retry, &stop);
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (;;) {
            const size_t k = next++;
            if (k >= to_fetch.size() || stop) break;
            const size_t i = to_fetch[k];
            {
                std::lock_guard<std::mutex> g(sh.m);
                sh.state[i] = FileState::Downloading;
                sh.state_changed = true;
            }
            sh.cv.notify_all();
            FileState end = FileState::Done;
            try {
                const BlobResult b = download_blob(
                    client, root, listing, files[i], [&, i](uint64_t n) { sh.done[i] = n; },
                    [&](const std::string& msg) {
                        std::lock_guard<std::mutex> g(sh.m);
                        sh.notices.push_back(ref.repo_id + ": " + msg);
                    });
                link_snapshot_file(root, ref.repo_id, listing.commit, files[i].path, files[i].etag());
                std::lock_guard<std::mutex> g(sh.m);
                result.bytes_fetched += b.bytes_fetched;
                if (b.already_cached) {
                    end = FileState::Cached;
                    ++result.files_cached;
                }
            } catch (const Cancelled&) {
                end = FileState::Waiting;  // paused: the partial data stays for the next pull
            } catch (...) {
                end = FileState::Failed;
                std::lock_guard<std::mutex> g(sh.m);
                if (!sh.error) sh.error = std::current_exception();
                stop = true;
            }
            {
                std::lock_guard<std::mutex> g(sh.m);
                sh.state[i] = end;
                sh.state_changed = true;
            }
            sh.cv.notify_all();
        }
        std::lock_guard<std::mutex> g(sh.m);
        --sh.running;
        sh.cv.notify_all();
    };

    const int workers = int(std::min<size_t>(to_fetch.size(), size_t(std::max(1, options.parallel_files))));
    std::vector<std::thread> threads;
    sh.running = workers;
    for (int w = 0; w < workers; ++w) threads.emplace_back(worker);

    TransferRate total_rate;
    std::map<size_t, TransferRate> file_rates;
    auto last_report = TransferRate::Clock::now() - std::chrono::seconds(1);
    for (;;) {
        std::deque<std::string> notices;
        bool changed = false, finished = false;
        {
            std::unique_lock<std::mutex> lk(sh.m);
            sh.cv.wait_for(lk, std::chrono::milliseconds(100));
            notices.swap(sh.notices);
            changed = sh.state_changed;
            sh.state_changed = false;
            finished = sh.running == 0;
            for (size_t i = 0; i < files.size(); ++i) status.files[i].state = sh.state[i];
        }
        if (cancel && cancel->load()) stop = true;
        const auto now = TransferRate::Clock::now();
        status.done_bytes = 0;
        for (size_t i = 0; i < files.size(); ++i) {
            FileStatus& f = status.files[i];
            f.done = sh.done[i];
            status.done_bytes += f.done;
            if (f.state == FileState::Downloading) {
                TransferRate& r = file_rates[i];
                r.sample(now, f.done);
                f.bytes_per_second = r.bytes_per_second();
                f.eta_seconds = r.eta_seconds(f.size - std::min(f.size, f.done));
            } else {
                file_rates.erase(i);
                f.bytes_per_second = 0;
                f.eta_seconds = f.state == FileState::Done || f.state == FileState::Cached ? 0 : -1;
            }
        }
        total_rate.sample(now, status.done_bytes);
        status.bytes_per_second = total_rate.bytes_per_second();
        status.eta_seconds = total_rate.eta_seconds(status.total_bytes - std::min(status.total_bytes, status.done_bytes));
        if (observer) {
            for (const auto& n : notices) observer->on_notice(n);
            if (changed || finished || now - last_report >= std::chrono::milliseconds(250)) {
                observer->on_status(status);
                last_report = now;
            }
        }
        if (finished) break;
    }
    for (auto& t : threads) t.join();
    if (sh.error) std::rethrow_exception(sh.error);
    if (stop || (cancel && cancel->load())) throw Cancelled();
    return result;
}

}  // namespace folio::hub
