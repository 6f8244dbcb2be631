#include "engine/hub/hub_cache.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

#include "engine/core/error.h"
#include "engine/hub/http_client.h"
#include "engine/hub/repo_ref.h"

namespace folio::hub {

namespace fs = std::filesystem;

std::string repo_dir(const std::string& root, const std::string& repo_id) { return root + "/" + repo_folder_name(repo_id); }
std::string blob_path(const std::string& root, const std::string& repo_id, const std::string& etag) {
    return repo_dir(root, repo_id) + "/blobs/" + etag;
}
std::string incomplete_path(const std::string& root, const std::string& repo_id, const std::string& etag) {
    return blob_path(root, repo_id, etag) + ".incomplete";
}
std::string snapshot_dir(const std::string& root, const std::string& repo_id, const std::string& commit) {
    return repo_dir(root, repo_id) + "/snapshots/" + commit;
}
std::string locks_dir(const std::string& root, const std::string& repo_id) {
    return root + "/.locks/" + repo_folder_name(repo_id);
}
std::string lock_path(const std::string& root, const std::string& repo_id, const std::string& etag) {
    return locks_dir(root, repo_id) + "/" + etag + ".lock";
}

namespace {

void make_dirs(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error("cannot create the folder " + dir.string() + ": " + ec.message());
}

std::string temp_name_for(const std::string& path) {
    return path + ".tmp-" + std::to_string(::getpid()) + "-" +
           std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()) % 100000);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes) {
    make_dirs(fs::path(path).parent_path());
    const std::string tmp = temp_name_for(path);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw Error("cannot write " + tmp + ": " + std::strerror(errno));
    size_t off = 0;
    while (off < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(tmp.c_str());
            throw Error("cannot write " + path + ": " + why);
        }
        off += size_t(n);
    }
    ::fsync(fd);
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        throw Error("cannot write " + path + ": " + why);
    }
}

std::optional<std::string> read_ref(const std::string& root, const std::string& repo_id, const std::string& revision) {
    std::ifstream in(repo_dir(root, repo_id) + "/refs/" + revision);
    if (!in) return std::nullopt;
    std::string commit;
    in >> commit;
    if (!is_commit_hash(commit)) return std::nullopt;
    return commit;
}

void write_ref(const std::string& root, const std::string& repo_id, const std::string& revision, const std::string& commit) {
    if (revision == commit) return;  // a commit needs no ref (huggingface_hub writes none either)
    if (read_ref(root, repo_id, revision) == commit) return;
    write_file_atomically(repo_dir(root, repo_id) + "/refs/" + revision, commit);
}

std::optional<std::string> cached_commit(const std::string& root, const std::string& repo_id, const std::string& revision) {
    if (is_commit_hash(revision)) {
        std::error_code ec;
        if (fs::is_directory(snapshot_dir(root, repo_id, revision), ec)) return revision;
    }
    return read_ref(root, repo_id, revision);
}

void link_snapshot_file(const std::string& root, const std::string& repo_id, const std::string& commit,
                        const std::string& path, const std::string& etag) {
    const fs::path link = fs::path(snapshot_dir(root, repo_id, commit)) / path;
    make_dirs(link.parent_path());
    const fs::path target = fs::path(blob_path(root, repo_id, etag)).lexically_relative(link.parent_path());
    const std::string tmp = temp_name_for(link.string());
    std::error_code ec;
    fs::remove(tmp, ec);
    fs::create_symlink(target, tmp, ec);
    if (ec) throw Error("cannot make the link " + link.string() + " -> " + target.string() + ": " + ec.message());
    fs::rename(tmp, link, ec);
    if (ec) {
        fs::remove(tmp);
        throw Error("cannot make the link " + link.string() + ": " + ec.message());
    }
}

FileLock::FileLock(const std::string& path, const std::atomic<bool>* cancel) {
    make_dirs(fs::path(path).parent_path());
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("cannot make the lock file " + path + ": " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            const std::string why = std::strerror(errno);
            ::close(fd_);
            throw Error("cannot lock " + path + ": " + why);
        }
        if (cancel && cancel->load()) {
            ::close(fd_);
            throw Cancelled();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

FileLock::~FileLock() {
    if (fd_ >= 0) {
        ::flock(fd_, LOCK_UN);
        ::close(fd_);
    }
}

bool FileLock::held_elsewhere(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return false;
    const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
    if (!held) ::flock(fd, LOCK_UN);
    ::close(fd);
    return held;
}

}  // namespace folio::hub
