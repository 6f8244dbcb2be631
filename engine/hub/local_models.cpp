#include "engine/hub/local_models.h"

#include <filesystem>

#include "engine/hub/cache_scan.h"

namespace folio::hub {

namespace fs = std::filesystem;

namespace {

uint64_t folder_bytes(const fs::path& dir) {
    uint64_t total = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec)) total += it->file_size(ec);
    return total;
}

std::string canonical_or_self(const std::string& p) {
    std::error_code ec;
    const auto c = fs::weakly_canonical(p, ec);
    return ec ? p : c.string();
}

}  // namespace

std::vector<LocalModel> list_local_models(const std::string& cache_root, const std::vector<std::string>& folders) {
    std::vector<LocalModel> out;
    for (const CachedRepo& repo : scan_hub_cache(cache_root)) {
        for (const CachedSnapshot& snap : repo.snapshots) {
            LocalModel m;
            m.name = repo.repo_id;
            m.path = snap.dir;
            m.from_cache = true;
            m.repo_id = repo.repo_id;
            m.commit = snap.commit;
            m.refs = snap.refs;
            m.size_on_disk = snap.bytes;
            m.partial_bytes = repo.incomplete_bytes;
            m.summary = summarize_model(snap.dir);
            out.push_back(std::move(m));
        }
    }
    const std::string cache_prefix = canonical_or_self(cache_root) + "/";
    for (const auto& folder : folders) {
        std::error_code ec;
        if (folder.empty() || !fs::is_directory(folder, ec)) continue;
        if (canonical_or_self(folder).rfind(cache_prefix, 0) == 0) continue;  // already listed from the cache
        LocalModel m;
        m.name = fs::path(folder).filename().string();
        if (m.name.empty()) m.name = fs::path(folder).parent_path().filename().string();
        m.path = folder;
        m.size_on_disk = folder_bytes(folder);
        m.summary = summarize_model(folder);
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace folio::hub
