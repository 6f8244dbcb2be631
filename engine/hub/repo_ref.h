#pragma once
// Naming a model repository: "org/name[@revision]" as typed by a person, the cache folder it maps to
// ("models--org--name") and the URL pieces the Hub expects.
#include <string>

namespace folio::hub {

struct RepoRef {
    std::string repo_id;            // "org/name" (or a legacy "name")
    std::string revision = "main";  // branch, tag or commit hash
};

// Parses "org/name" or "org/name@revision". Throws folio::Error saying what is wrong with the text
// (empty, three parts, characters the Hub does not allow, "--" or "..", too long).
RepoRef parse_repo_ref(const std::string& text);
// The same checks on a bare repository id.
void check_repo_id(const std::string& repo_id);

// "models--org--name": the repository's folder in the hub cache.
std::string repo_folder_name(const std::string& repo_id);
// The inverse for folders of models ("models--org--name" -> "org/name"); empty for other folders
// (datasets--, spaces--, .locks, anything else).
std::string repo_id_from_folder(const std::string& folder);

// 40 lowercase hex digits: a git commit (a revision that needs no resolving).
bool is_commit_hash(const std::string& s);

// Percent-encodes everything but unreserved characters and those in `safe` (Python's
// urllib.parse.quote): revisions go in with safe="" ("refs/pr/1" -> "refs%2Fpr%2F1"), file paths
// with safe="/".
std::string url_quote(const std::string& s, const std::string& safe);

}  // namespace folio::hub
