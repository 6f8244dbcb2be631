// folio-cli models [--json] [--context N] [--backend auto|cpu|cuda] [--folder DIR]... [--data-dir DIR]
// Every local model: the hub cache's snapshots (whoever downloaded them) and the folders the app
// remembers (or --folder), with family, parameters, format, size on disk, and whether it fits the
// memory of the device the engine would use, for conversations of --context tokens (default: the
// model's full context, which the engine reserves at least one of when it loads).
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "app/cli/cli_args.h"
#include "app/cli/cli_tokenizer.h"
#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "app/cli/recent_folders.h"
#include "engine/backends/backend_factory.h"
#include "engine/core/error.h"
#include "engine/hub/blob_download.h"
#include "engine/hub/fit_estimate.h"
#include "engine/hub/hub_config.h"
#include "engine/hub/local_models.h"

namespace folio::cli {
namespace {

using nlohmann::json;

json fit_json(const hub::FitEstimate& f) {
    return {{"context", f.context}, {"known", f.known}, {"fits", f.fits}, {"conversations", f.conversations},
            {"weights_bytes", f.weights}, {"activations_bytes", f.activations}, {"kv_bytes_per_token", f.kv_per_token},
            {"kv_bytes_per_conversation", f.kv_per_conversation}, {"usable_bytes", f.usable}, {"verdict", f.verdict}};
}

json model_json(const hub::LocalModel& m, const hub::FitEstimate& f) {
    const hub::ModelSummary& s = m.summary;
    return {{"name", m.name},
            {"path", m.path},
            {"source", m.from_cache ? "hub-cache" : "folder"},
            {"repo_id", m.repo_id},
            {"commit", m.commit},
            {"refs", m.refs},
            {"family", s.family},
            {"architecture", s.architecture},
            {"parameters", s.parameters},
            {"format", s.format},
            {"size_on_disk", m.size_on_disk},
            {"partial_download_bytes", m.partial_bytes},
            {"weight_bytes", s.weight_bytes},
            {"max_context", s.max_context},
            {"runnable", s.problem.empty()},
            {"problem", s.problem},
            {"fit", fit_json(f)}};
}

std::string usage() {
    return "usage: folio-cli models [--json] [--context N] [--backend auto|cpu|cuda] [--folder DIR]... [--data-dir DIR]\n"
           "\n"
           "Lists every local model: the hub cache's snapshots and the folders the app remembers (or --folder),\n"
           "with family, parameters, format, size on disk, and whether it fits the memory of the device the\n"
           "engine would use.\n"
           "\n"
           "  --context N              tokens per conversation for the fit (default: the model's full context)\n"
           "  --backend auto|cpu|cuda  the device whose memory counts (auto: CUDA when a GPU is present)\n"
           "  --folder DIR             also list the model in DIR (repeatable)\n"
           "  --data-dir DIR           the app's data folder, whose settings.ini lists its recent folders\n"
           "  --json                   one JSON object\n";
}

int run(int argc, char** argv, int first) {
    const Args args(argc, argv, first, {"context", "backend", "folder", "data-dir"}, {"json"});
    args.expect_no_positional();
    const int context = args.get_int("context", 0);
    if (context < 0) throw UsageError("--context must be a positive number of tokens");
    const std::string backend = args.get_or("backend", "auto");
    check_backend(backend);
    const BackendKind kind = parse_backend_kind(backend);
    const hub::HubConfig config = hub::hub_config_from_env();

    std::vector<std::string> folders = args.get_all("folder");
    const std::string data_dir = args.get_or("data-dir", default_app_data_dir());
    for (auto& f : recent_model_folders(data_dir + "/settings.ini")) folders.push_back(f);
    const auto models = hub::list_local_models(config.cache_dir, folders);

    const DeviceMemoryReading mem = read_device_memory(kind);
    const hub::MemoryBudget budget = hub::memory_budget(mem.device, mem.gpu, mem.total, mem.free);

    if (args.has("json")) {
        json out = {{"cache_dir", config.cache_dir},
                    {"device", {{"name", mem.device}, {"gpu", mem.gpu}, {"total_bytes", mem.total}, {"free_bytes", mem.free},
                                {"usable_bytes", budget.usable}, {"kv_budget_bytes", budget.kv_budget}}},
                    {"models", json::array()}};
        for (const auto& m : models) out["models"].push_back(model_json(m, hub::estimate_fit(m.summary, budget, context)));
        std::printf("%s\n", out.dump(2).c_str());
        return std::fflush(stdout) == 0 ? 0 : 1;
    }

    if (mem.gpu)
        std::printf("memory: %s, %s (%s usable at 90%%)\n", mem.device.c_str(), hub::human_bytes(double(mem.total)).c_str(),
                    hub::human_bytes(double(budget.usable)).c_str());
    else
        std::printf("memory: RAM, %s (%s available; the CPU backend's KV budget is %s)\n", hub::human_bytes(double(mem.total)).c_str(),
                    hub::human_bytes(double(budget.usable)).c_str(), hub::human_bytes(double(budget.kv_budget)).c_str());
    std::printf("hub cache: %s\n", config.cache_dir.c_str());
    if (models.empty()) {
        std::printf("\nno local models yet: folio-cli pull ORG/NAME downloads one (e.g. TheBloke/Mistral-7B-Instruct-v0.2-AWQ)\n");
        return std::fflush(stdout) == 0 ? 0 : 1;
    }
    for (const auto& m : models) {
        const hub::ModelSummary& s = m.summary;
        std::string where = m.from_cache ? "hub cache" : "folder";
        if (m.from_cache) {
            std::string refs;
            for (const auto& r : m.refs) refs += (refs.empty() ? "" : ", ") + r;
            where += ", " + (refs.empty() ? std::string() : refs + ", ") + "commit " + m.commit.substr(0, 12);
        }
        std::printf("\n%s  (%s)\n", m.name.c_str(), where.c_str());
        std::string facts = s.family.empty() ? "?" : s.family;
        if (s.parameters) facts += " · " + hub::parameters_text(s.parameters) + " parameters";
        if (!s.format.empty()) facts += " · " + s.format;
        facts += " · " + hub::human_bytes(double(m.size_on_disk)) + " on disk";
        if (m.partial_bytes) facts += " (+" + hub::human_bytes(double(m.partial_bytes)) + " of an unfinished download)";
        std::printf("  %s\n", facts.c_str());
        if (!s.problem.empty()) std::printf("  cannot run: %s\n", s.problem.c_str());
        std::printf("  %s\n", hub::estimate_fit(s, budget, context).verdict.c_str());
        std::printf("  %s\n", m.path.c_str());
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

const Command models_command = {"models", "the local models, and whether each fits this machine's memory", usage, run};

}  // namespace folio::cli
