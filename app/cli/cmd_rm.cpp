// folio-cli rm ORG/NAME[@REVISION]
// Removes a model from the hub cache: every snapshot, or only the revision given (then each blob
// another snapshot still uses is kept). Refuses while a download of it is running.
#include <cstdio>

#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "engine/core/error.h"
#include "engine/hub/blob_download.h"
#include "engine/hub/cache_scan.h"
#include "engine/hub/hub_config.h"
#include "engine/hub/repo_ref.h"

namespace folio::cli {
namespace {

std::string usage() {
    return "usage: folio-cli rm ORG/NAME[@REVISION]\n"
           "\n"
           "Removes a model from the hub cache: every snapshot, or only the revision given (then each file\n"
           "another snapshot still uses is kept). Refuses while a download of it is running.\n";
}

int run(int argc, char** argv, int first) {
    const Args args(argc, argv, first, {}, {});
    if (args.positional().size() != 1) throw UsageError("give one repository: folio-cli rm ORG/NAME[@REVISION]");
    const std::string& text = args.positional()[0];
    const hub::RepoRef ref = hub::parse_repo_ref(text);
    const std::string revision = text.find('@') == std::string::npos ? "" : ref.revision;
    const hub::HubConfig config = hub::hub_config_from_env();
    const hub::RemovalReport r = hub::remove_cached_repo(config.cache_dir, ref.repo_id, revision);
    std::printf("removed %s%s: %zu snapshot%s, %d file%s; freed %s", ref.repo_id.c_str(),
                revision.empty() ? "" : ("@" + revision).c_str(), r.snapshots_removed.size(),
                r.snapshots_removed.size() == 1 ? "" : "s", r.blobs_removed, r.blobs_removed == 1 ? "" : "s",
                hub::human_bytes(double(r.bytes_freed)).c_str());
    if (r.blobs_kept) std::printf(" (%d file%s kept: another snapshot uses them)", r.blobs_kept, r.blobs_kept == 1 ? "" : "s");
    std::printf("\n");
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

const Command rm_command = {"rm", "remove a model from the hub cache", usage, run};

}  // namespace folio::cli
