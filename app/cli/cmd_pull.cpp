// folio-cli pull ORG/NAME[@REVISION] [--include GLOB]... [--exclude GLOB]... [--all] [--jobs N] [--json]
// Downloads a model into the Hugging Face hub cache (HF_HUB_CACHE, HF_HOME, ~/.cache/huggingface/hub),
// resuming what an earlier pull left, verifying every file; prints the folder to load on stdout.
// Progress goes to stderr: bars on a terminal, lines otherwise. Ctrl-C pauses (partial data is kept;
// the same command resumes).
#include <csignal>
#include <cstdio>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "app/cli/pull_progress.h"
#include "engine/core/error.h"
#include "engine/hub/blob_download.h"
#include "engine/hub/pull.h"

namespace folio::cli {
namespace {

// A signal handler can reach nothing but a global: the one place this command keeps one.
std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) {
    g_interrupted = true;
    std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C stops at once
}

std::string usage() {
    return "usage: folio-cli pull ORG/NAME[@REVISION] [--include GLOB]... [--exclude GLOB]... [--all] [--jobs N] [--json]\n"
           "\n"
           "Downloads a model into the Hugging Face hub cache (HF_HUB_CACHE, HF_HOME, ~/.cache/huggingface/hub),\n"
           "resuming what an earlier pull left and verifying every file; prints the folder to load on stdout.\n"
           "Progress goes to stderr. Ctrl-C pauses (the data downloaded so far is kept; the same command\n"
           "resumes, exit status 130). HF_TOKEN is sent for gated models; HF_HUB_OFFLINE=1 uses the cache only.\n"
           "\n"
           "  --include GLOB   also fetch the files matching GLOB (repeatable)\n"
           "  --exclude GLOB   skip the files matching GLOB (repeatable)\n"
           "  --all            every file of the repository, not only what the engine loads\n"
           "  --jobs N         files downloaded at once, 1 to 16 (default 4)\n"
           "  --json           one JSON object on stdout (repo, revision, commit, path, files, bytes)\n";
}

int run(int argc, char** argv, int first) {
    const Args args(argc, argv, first, {"include", "exclude", "jobs"}, {"all", "json"});
    if (args.positional().size() != 1) throw UsageError("give one repository: folio-cli pull ORG/NAME[@REVISION]");
    const hub::RepoRef ref = hub::parse_repo_ref(args.positional()[0]);
    hub::PullOptions options;
    options.include = args.get_all("include");
    options.exclude = args.get_all("exclude");
    options.all_files = args.has("all");
    options.parallel_files = args.get_int("jobs", 4);
    if (options.parallel_files < 1 || options.parallel_files > 16) throw UsageError("--jobs must be 1 to 16");
    const hub::HubConfig config = hub::hub_config_from_env();
    const bool json = args.has("json");

    PullProgress progress(stderr, !json && ::isatty(STDERR_FILENO));
    g_interrupted = false;
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    hub::PullResult r;
    try {
        r = hub::pull_model(config, ref, options, &progress, &g_interrupted);
    } catch (const hub::Cancelled&) {
        progress.finish();
        std::fprintf(stderr, "paused: the data downloaded so far is kept in %s; run the same command to resume\n",
                     config.cache_dir.c_str());
        return 130;
    }
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    progress.finish();
    if (json) {
        const nlohmann::json out = {{"repo", r.repo_id}, {"revision", r.revision}, {"commit", r.commit},
                                    {"path", r.snapshot_dir}, {"files", r.files}, {"files_cached", r.files_cached},
                                    {"bytes_downloaded", r.bytes_fetched}, {"offline", r.offline}};
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::fprintf(stderr, "%s %s@%s (commit %s): %d file%s, %s downloaded%s\n", r.offline ? "from the cache:" : "ready:",
                     r.repo_id.c_str(), r.revision.c_str(), r.commit.substr(0, 12).c_str(), r.files, r.files == 1 ? "" : "s",
                     hub::human_bytes(double(r.bytes_fetched)).c_str(),
                     r.offline ? " (HF_HUB_OFFLINE: nothing was checked online)" : "");
        std::printf("%s\n", r.snapshot_dir.c_str());
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

const Command pull_command = {"pull", "download a model from the Hugging Face Hub into its cache", usage, run};

}  // namespace folio::cli
