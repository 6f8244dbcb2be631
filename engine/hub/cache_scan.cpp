#include "engine/hub/cache_scan.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "engine/core/error.h"
#include "engine/hub/hub_cache.h"
#include "engine/hub/repo_ref.h"

namespace folio::hub {

namespace fs = std::filesystem;

namespace {

uint64_t file_size_or_zero(const fs::path& p) {
    std::error_code ec;
    const auto s = fs::file_size(p, ec);
    return ec ? 0 : uint64_t(s);
}

// refs/ may hold nested names ("refs/pr/1"): each file's path below refs/ is the revision.
std::map<std::string, std::vector<std::string>> read_refs(const fs::path& repo) {
    std::map<std::string, std::vector<std::string>> by_commit;
    std::error_code ec;
    const fs::path refs = repo / "refs";
    if (!fs::is_directory(refs, ec)) return by_commit;
    for (auto it = fs::recursive_directory_iterator(refs, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        std::ifstream in(it->path());
        std::string commit;
        in >> commit;
        if (is_commit_hash(commit)) by_commit[commit].push_back(it->path().lexically_relative(refs).string());
    }
    return by_commit;
}

CachedSnapshot scan_snapshot(const fs::path& dir) {
    CachedSnapshot s;
    s.commit = dir.filename().string();
    s.dir = dir.string();
    std::set<std::string> counted;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const fs::path p = it->path();
        if (it->is_directory(ec) && !it->is_symlink(ec)) continue;
        CachedFile f;
        f.path = p.lexically_relative(dir).string();
        if (it->is_symlink(ec)) {
            const fs::path target = fs::read_symlink(p, ec);
            f.blob = target.filename().string();
            const fs::path resolved = (p.parent_path() / target).lexically_normal();
            f.dangling = !fs::exists(resolved, ec);
            f.size = f.dangling ? 0 : file_size_or_zero(resolved);
            if (!f.dangling && counted.insert(f.blob).second) s.bytes += f.size;
        } else {
            f.size = file_size_or_zero(p);
            s.bytes += f.size;
        }
        s.files.push_back(std::move(f));
    }
    std::sort(s.files.begin(), s.files.end(), [](const CachedFile& a, const CachedFile& b) { return a.path < b.path; });
    return s;
}

std::optional<CachedRepo> scan_repo_dir(const fs::path& dir) {
    CachedRepo r;
    r.repo_id = repo_id_from_folder(dir.filename().string());
    if (r.repo_id.empty()) return std::nullopt;
    r.dir = dir.string();
    std::error_code ec;
    const auto refs = read_refs(dir);
    std::vector<std::pair<fs::file_time_type, CachedSnapshot>> snaps;
    if (fs::is_directory(dir / "snapshots", ec))
        for (const auto& e : fs::directory_iterator(dir / "snapshots", ec)) {
            if (!e.is_directory(ec)) continue;
            CachedSnapshot s = scan_snapshot(e.path());
            if (auto it = refs.find(s.commit); it != refs.end()) s.refs = it->second;
            snaps.emplace_back(fs::last_write_time(e.path(), ec), std::move(s));
        }
    std::sort(snaps.begin(), snaps.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (auto& [t, s] : snaps) r.snapshots.push_back(std::move(s));
    if (fs::is_directory(dir / "blobs", ec))
        for (const auto& e : fs::directory_iterator(dir / "blobs", ec)) {
            if (!e.is_regular_file(ec)) continue;
            const uint64_t size = file_size_or_zero(e.path());
            r.size_on_disk += size;
            if (e.path().extension() == ".incomplete") r.incomplete_bytes += size;
        }
    // A cache made without symlinks holds plain files in the snapshots.
    for (const auto& s : r.snapshots)
        for (const auto& f : s.files)
            if (f.blob.empty()) r.size_on_disk += f.size;
    return r;
}

}  // namespace

std::vector<CachedRepo> scan_hub_cache(const std::string& root) {
    std::vector<CachedRepo> out;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return out;
    for (const auto& e : fs::directory_iterator(root, ec)) {
        if (!e.is_directory(ec)) continue;
        if (auto r = scan_repo_dir(e.path())) out.push_back(std::move(*r));
    }
    std::sort(out.begin(), out.end(), [](const CachedRepo& a, const CachedRepo& b) { return a.repo_id < b.repo_id; });
    return out;
}

std::optional<CachedRepo> scan_cached_repo(const std::string& root, const std::string& repo_id) {
    std::error_code ec;
    const fs::path dir = repo_dir(root, repo_id);
    if (!fs::is_directory(dir, ec)) return std::nullopt;
    return scan_repo_dir(dir);
}

RemovalReport remove_cached_repo(const std::string& root, const std::string& repo_id, const std::string& revision) {
    check_repo_id(repo_id);
    auto repo = scan_cached_repo(root, repo_id);
    if (!repo) throw Error(repo_id + " is not in the hub cache (" + root + ")");
    std::error_code ec;
    // A running download holds a blob's lock: removing under it would pull files from under its feet.
    const fs::path locks = locks_dir(root, repo_id);
    if (fs::is_directory(locks, ec))
        for (const auto& e : fs::directory_iterator(locks, ec))
            if (FileLock::held_elsewhere(e.path().string()))
                throw Error("a download of " + repo_id + " is running: cancel it first, then remove the model");

    RemovalReport report;
    const fs::path dir = repo->dir;
    if (revision.empty()) {
        for (const auto& s : repo->snapshots) {
            report.snapshots_removed.push_back(s.commit);
            for (const auto& r : s.refs) report.refs_removed.push_back(r);
        }
        if (fs::is_directory(dir / "blobs", ec))
            for (const auto& e : fs::directory_iterator(dir / "blobs", ec))
                if (e.is_regular_file(ec)) ++report.blobs_removed;
        report.bytes_freed = repo->size_on_disk;
        fs::remove_all(dir, ec);
        if (ec) throw Error("cannot remove " + dir.string() + ": " + ec.message());
        fs::remove_all(locks, ec);
        return report;
    }

    const auto commit = cached_commit(root, repo_id, revision);
    auto target = std::find_if(repo->snapshots.begin(), repo->snapshots.end(),
                               [&](const CachedSnapshot& s) { return commit && s.commit == *commit; });
    if (target == repo->snapshots.end())
        throw Error(repo_id + " has no snapshot for '" + revision + "' in the hub cache (" + root + ")");

    std::set<std::string> still_used;
    for (const auto& s : repo->snapshots)
        if (s.commit != target->commit)
            for (const auto& f : s.files) still_used.insert(f.blob);
    std::set<std::string> candidates;
    for (const auto& f : target->files)
        if (!f.blob.empty()) candidates.insert(f.blob);

    fs::remove_all(target->dir, ec);
    if (ec) throw Error("cannot remove " + target->dir + ": " + ec.message());
    report.snapshots_removed.push_back(target->commit);
    for (const auto& r : target->refs) {
        fs::remove(dir / "refs" / r, ec);
        report.refs_removed.push_back(r);
    }
    for (const auto& b : candidates) {
        if (still_used.count(b)) {
            ++report.blobs_kept;
            continue;
        }
        const fs::path blob = dir / "blobs" / b;
        const uint64_t size = file_size_or_zero(blob);
        if (fs::remove(blob, ec)) {
            ++report.blobs_removed;
            report.bytes_freed += size;
        }
    }
    return report;
}

}  // namespace folio::hub
