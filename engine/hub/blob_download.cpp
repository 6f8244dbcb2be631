#include "engine/hub/blob_download.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/hub/content_hash.h"
#include "engine/hub/hub_cache.h"

namespace folio::hub {

namespace fs = std::filesystem;

std::string human_bytes(double b) {
    char buf[32];
    if (b >= 1e9) std::snprintf(buf, sizeof buf, "%.1f GB", b / 1e9);
    else if (b >= 1e6) std::snprintf(buf, sizeof buf, "%.0f MB", b / 1e6);
    else if (b >= 1e3) std::snprintf(buf, sizeof buf, "%.0f KB", b / 1e3);
    else std::snprintf(buf, sizeof buf, "%.0f B", b);
    return buf;
}

namespace {

ContentHash::Kind hash_kind(const RepoFile& f) { return f.is_lfs() ? ContentHash::Kind::Sha256 : ContentHash::Kind::GitBlobSha1; }
const char* hash_name(const RepoFile& f) { return f.is_lfs() ? "sha256" : "git blob sha1"; }

// The .incomplete file and the running hash of exactly the bytes it holds.
class IncompleteFile {
public:
    IncompleteFile(std::string path, const RepoFile& file) : path_(std::move(path)), file_(file) {
        open_and_hash();
    }
    ~IncompleteFile() { close_fd(); }
    IncompleteFile(const IncompleteFile&) = delete;
    IncompleteFile& operator=(const IncompleteFile&) = delete;

    uint64_t size() const { return size_; }
    const std::string& path() const { return path_; }
    int write_errno() const { return write_errno_; }

    void restart() {
        if (::ftruncate(fd_, 0) != 0) throw Error("cannot truncate " + path_ + ": " + std::strerror(errno));
        ::lseek(fd_, 0, SEEK_SET);
        size_ = 0;
        hash_ = std::make_unique<ContentHash>(hash_kind(file_), file_.size);
    }

    // Writes all of it or nothing: a failed write is cut back so the file holds what was hashed.
    bool append(const char* data, size_t n) {
        size_t off = 0;
        while (off < n) {
            const ssize_t w = ::write(fd_, data + off, n - off);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                write_errno_ = w < 0 ? errno : EIO;
                if (::ftruncate(fd_, off_t(size_)) == 0) ::lseek(fd_, off_t(size_), SEEK_SET);
                return false;
            }
            off += size_t(w);
        }
        hash_->update(data, n);
        size_ += n;
        return true;
    }

    std::string digest() { return hash_->hex_digest(); }

    // Deletes the data (after a failed verification); reopen() starts an empty file.
    void remove() {
        close_fd();
        ::unlink(path_.c_str());
    }
    void reopen() { open_and_hash(); }

    // fsync, then the atomic rename to the blob's name.
    void commit_as(const std::string& blob) {
        if (::fsync(fd_) != 0) throw Error("cannot write " + path_ + " to disk: " + std::strerror(errno));
        close_fd();
        ::chmod(path_.c_str(), 0644);
        if (::rename(path_.c_str(), blob.c_str()) != 0)
            throw Error("cannot rename " + path_ + " to " + blob + ": " + std::strerror(errno));
    }

private:
    void open_and_hash() {
        fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) throw Error("cannot write " + path_ + ": " + std::strerror(errno) + " (is the hub cache writable?)");
        struct stat st{};
        ::fstat(fd_, &st);
        size_ = uint64_t(st.st_size);
        hash_ = std::make_unique<ContentHash>(hash_kind(file_), file_.size);
        if (size_ > file_.size) {
            restart();  // longer than the file can be: not ours to trust
            return;
        }
        try {
            hash_->update_from_file(path_, size_);
        } catch (const Error&) {
            restart();
        }
        ::lseek(fd_, off_t(size_), SEEK_SET);
    }
    void close_fd() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

    std::string path_;
    const RepoFile& file_;
    int fd_ = -1;
    uint64_t size_ = 0;
    int write_errno_ = 0;
    std::unique_ptr<ContentHash> hash_;
};

// Routes an answer's body into the incomplete file, checking that it continues where the file ends.
class BlobSink : public BodySink {
public:
    BlobSink(IncompleteFile& f, const RepoFile& file, const BytesCallback& on_bytes, const NoticeCallback& on_notice)
        : f_(f), file_(file), on_bytes_(on_bytes), on_notice_(on_notice) {}

    bool begin(const HttpResponse& head) override {
        if (head.status == 206) {
            unsigned long long start = 0;
            const std::string range = head.header("content-range");
            if (std::sscanf(range.c_str(), "bytes %llu-", &start) != 1 || start != f_.size()) {
                problem_ = "the server answered the resume request with the range '" + range + "' instead of bytes " +
                           std::to_string(f_.size()) + "-";
                return false;
            }
        } else if (f_.size() > 0) {
            on_notice_(file_.path + ": the server ignored the resume request (no Range support); downloading it from the start");
            f_.restart();
            on_bytes_(0);
        }
        return true;
    }

    bool write(const char* data, size_t n) override {
        if (f_.size() + n > file_.size) {
            problem_ = "the server sent more than the " + std::to_string(file_.size) + " bytes the listing gives";
            return false;
        }
        if (!f_.append(data, n)) return false;
        fetched_ += n;
        on_bytes_(f_.size());
        return true;
    }

    const std::string& problem() const { return problem_; }
    uint64_t fetched() const { return fetched_; }

private:
    IncompleteFile& f_;
    const RepoFile& file_;
    const BytesCallback& on_bytes_;
    const NoticeCallback& on_notice_;
    std::string problem_;
    uint64_t fetched_ = 0;
};

// A blob already in the cache with the listed size is taken as it is (as every hub client does); a
// blob of another size is not the listed file and is removed.
bool blob_present(const std::string& blob, const RepoFile& file, const NoticeCallback& on_notice) {
    std::error_code ec;
    if (!fs::exists(blob, ec)) return false;
    const auto size = fs::file_size(blob, ec);
    if (!ec && uint64_t(size) == file.size) return true;
    on_notice(file.path + ": the cached blob has " + std::to_string(ec ? 0 : size) + " bytes instead of " +
              std::to_string(file.size) + "; removed it, downloading again");
    fs::remove(blob, ec);
    return false;
}

std::string write_failure(const IncompleteFile& f, const RepoFile& file, const std::string& cache_root) {
    const int e = f.write_errno();
    std::string msg = "cannot write " + f.path() + ": " + std::strerror(e);
    if (e == ENOSPC || e == EDQUOT)
        msg += " (the disk holding " + cache_root + " is full): free at least " +
               human_bytes(double(file.size - f.size())) + " and pull again";
    else
        msg += ": fix the cause and pull again";
    msg += "; the " + human_bytes(double(f.size())) + " of " + file.path +
           " downloaded so far are kept and the download resumes from there";
    return msg;
}

}  // namespace

BlobResult download_blob(const HubClient& client, const std::string& cache_root, const RepoListing& listing,
                         const RepoFile& file, const BytesCallback& on_bytes, const NoticeCallback& on_notice) {
    const std::string& repo = listing.repo_id;
    const std::string blob = blob_path(cache_root, repo, file.etag());
    BlobResult res;
    if (blob_present(blob, file, on_notice)) {
        res.already_cached = true;
        on_bytes(file.size);
        return res;
    }
    std::error_code ec;
    fs::create_directories(fs::path(blob).parent_path(), ec);
    if (ec) throw Error("cannot create " + fs::path(blob).parent_path().string() + ": " + ec.message());
    FileLock lock(lock_path(cache_root, repo, file.etag()), client.cancel_flag());
    if (blob_present(blob, file, on_notice)) {  // another download finished it while we waited
        res.already_cached = true;
        on_bytes(file.size);
        return res;
    }

    IncompleteFile part(incomplete_path(cache_root, repo, file.etag()), file);
    res.resumed_from = part.size();
    on_bytes(part.size());
    const std::string url = client.resolve_url(repo, listing.commit, file.path);
    const int max_attempts = std::max(1, client.policy().max_attempts);
    int failures = 0, mismatches = 0;

    auto retry_or_give_up = [&](const std::string& why) {
        ++failures;
        if (failures >= max_attempts)
            throw HubError(HubError::Kind::Network,
                           "gave up on " + file.path + " of " + repo + " after " + std::to_string(failures) +
                               " attempts (" + why + "); the " + human_bytes(double(part.size())) +
                               " downloaded so far are kept and the next pull resumes from there",
                           true);
        on_notice(file.path + ": " + why + "; trying again (" + std::to_string(failures + 1) + " of " +
                  std::to_string(max_attempts) + ")");
        client.backoff(failures);
    };

    for (;;) {
        if (part.size() < file.size) {
            BlobSink sink(part, file, on_bytes, on_notice);
            ++res.attempts;
            try {
                FileHeaders headers;
                const HttpResponse r = client.fetch_file(url, part.size(), sink, repo, file.path, headers);
                res.bytes_fetched += sink.fetched();
                if (r.stopped_by_sink) {
                    if (part.write_errno() != 0) throw Error(write_failure(part, file, cache_root));
                    part.restart();
                    on_bytes(0);
                    retry_or_give_up(sink.problem() + "; starting it again from the beginning");
                    continue;
                }
                if (r.status == 416) {
                    part.restart();
                    on_bytes(0);
                    retry_or_give_up("the server refused to resume at byte " + std::to_string(res.resumed_from));
                    continue;
                }
                if (part.size() < file.size) {
                    retry_or_give_up("the transfer ended at " + human_bytes(double(part.size())) + " of " +
                                     human_bytes(double(file.size)));
                    continue;
                }
            } catch (const TransportError& e) {
                res.bytes_fetched += sink.fetched();
                retry_or_give_up("the connection broke at " + human_bytes(double(part.size())) + " of " +
                                 human_bytes(double(file.size)) + " (" + e.what() + ")");
                continue;
            } catch (const HubError& e) {
                res.bytes_fetched += sink.fetched();
                if (!e.retryable()) throw;
                retry_or_give_up(e.what());
                continue;
            }
        }

        const std::string got = part.digest();
        if (got == file.etag()) {
            part.commit_as(blob);
            return res;
        }
        ++mismatches;
        part.remove();
        on_bytes(0);
        if (mismatches >= 2)
            throw Error(file.path + " of " + repo + " failed verification twice (" + hash_name(file) + " expected " +
                        file.etag() + ", got " + got + "): the bad data was deleted and nothing of it was kept. Something "
                        "between Folio and " + client.config().endpoint + " alters the data (a proxy or mirror?); try "
                        "again later or from another network");
        on_notice(file.path + ": the downloaded data does not match its " + std::string(hash_name(file)) + " (expected " +
                  file.etag() + ", got " + got + "); deleted it, downloading it once more");
        part.reopen();
    }
}

}  // namespace folio::hub
