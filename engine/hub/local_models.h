#pragma once
// The local model library: every snapshot in the hub cache (whoever downloaded it) and the folders
// a person opened, each summarised (family, parameters, format, size on disk, whether Folio runs it).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/hub/model_summary.h"

namespace folio::hub {

struct LocalModel {
    std::string name;            // "org/name" for the cache, the folder's name otherwise
    std::string path;            // the folder to load (a snapshot folder for the cache)
    bool from_cache = false;
    std::string repo_id;         // cache only
    std::string commit;          // cache only
    std::vector<std::string> refs;  // cache only: "main", ...
    uint64_t size_on_disk = 0;   // the snapshot's files (each blob once) or the folder's files
    uint64_t partial_bytes = 0;  // cache only: unfinished downloads of the repository
    ModelSummary summary;
};

// Snapshots of the hub cache at `cache_root` (newest first within a repository), then each folder
// of `folders` that exists and is not inside the cache (folders that are gone are left out).
std::vector<LocalModel> list_local_models(const std::string& cache_root, const std::vector<std::string>& folders);

}  // namespace folio::hub
