#pragma once
// The Hub's JSON API as Folio uses it: a repository's files at a revision (resolved to a commit), and
// model search.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/hub/hub_client.h"
#include "engine/hub/repo_ref.h"

namespace folio::hub {

struct RepoFile {
    std::string path;     // "model-00001-of-00002.safetensors", "subfolder/x.json"
    uint64_t size = 0;    // bytes of the content (for LFS files, of the real file, not the pointer)
    std::string blob_id;  // git blob sha1
    std::string sha256;   // LFS files only: the content's sha256 ("" for files kept in git)

    bool is_lfs() const { return !sha256.empty(); }
    // The name of its blob in the cache and what verifies it: the sha256 for LFS files, the git
    // blob sha1 otherwise (as huggingface_hub names blobs after the ETag).
    const std::string& etag() const { return is_lfs() ? sha256 : blob_id; }
};

struct RepoListing {
    std::string repo_id;
    std::string revision;  // as asked ("main")
    std::string commit;    // what it resolved to
    std::vector<RepoFile> files;
    std::string gated;     // "", "auto" or "manual" (from the model info)
};

// GET /api/models/{repo}/revision/{rev} (the commit), then /api/models/{repo}/tree/{commit}?recursive=true
// following Link pagination. Throws HubError (NotFound, Access with the gated message, ...).
RepoListing list_repo_files(const HubClient& client, const RepoRef& ref);

struct SearchQuery {
    std::string text;                 // matched against repository names by the Hub
    std::vector<std::string> tags;    // every one must be present ("awq", "fp8", "safetensors")
    uint64_t max_bytes = 0;           // 0: any size; else drop models whose weights are known to be larger
    int limit = 30;
};

struct SearchHit {
    std::string repo_id;
    int64_t downloads = 0;
    int64_t likes = 0;
    std::string gated;                 // "", "auto", "manual"
    std::string pipeline_tag;
    std::string last_modified;
    std::vector<std::string> tags;
    uint64_t parameters = 0;           // stored elements per the safetensors metadata (AWQ: packed); 0 unknown
    uint64_t weight_bytes = 0;         // the same times each dtype's size: the download; 0 when unknown
    std::string dtypes;                // "BF16", "I32+F16" ... from the same
    std::string format;                // Folio's short word: "AWQ", "FP8", "GPTQ", "GGUF", "safetensors", ""
};

// GET /api/models?search=...&filter=tag...&sort=downloads&direction=-1&limit=N&expand=... Throws HubError.
std::vector<SearchHit> search_models(const HubClient& client, const SearchQuery& query);

// The format word of a model from its tags (and safetensors dtypes): what the search list shows.
std::string format_from_tags(const std::vector<std::string>& tags, const std::string& dtypes);

// Bytes of one element of a safetensors dtype ("BF16" -> 2, "F8_E4M3" -> 1); 0 for unknown names.
int safetensors_dtype_bytes(const std::string& dtype);

}  // namespace folio::hub
