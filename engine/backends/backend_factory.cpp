#include "engine/backends/backend_factory.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "engine/core/error.h"
#include "engine/cpu/cpu_backend.h"
#include "kernels/cuda_module.h"

namespace folio {
namespace {

namespace fs = std::filesystem;

// Where the module may be: FOLIO_CUDA_MODULE (that file only), else beside the executable, in the
// installed layout's lib/folio, and in this build's own tree.
std::vector<std::string> module_candidates() {
    if (const char* env = std::getenv("FOLIO_CUDA_MODULE"); env && *env) return {env};
    std::vector<std::string> out;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        out.push_back((exe.parent_path() / FOLIO_CUDA_MODULE_FILE).string());
        out.push_back((exe.parent_path().parent_path() / "lib" / "folio" / FOLIO_CUDA_MODULE_FILE).string());
    }
#ifdef FOLIO_CUDA_MODULE_BUILD_PATH
    out.push_back(FOLIO_CUDA_MODULE_BUILD_PATH);
#endif
    return out;
}

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

struct LoadedModule {
    CudaStatus status;
    const FolioCudaModule* api = nullptr;
};

LoadedModule load_module() {
    LoadedModule m;
    const std::vector<std::string> candidates = module_candidates();
    std::string path;
    for (const auto& c : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(c, ec)) {
            path = c;
            break;
        }
    }
    m.status.module_found = !path.empty();
    if (path.empty()) {
        m.status.why_not = "the CUDA module " FOLIO_CUDA_MODULE_FILE " is not installed (looked for " + joined(candidates) +
                           "); install the folio-cuda package, or build with the CUDA toolkit";
        return m;
    }
    // Never unloaded: backends made from it live as long as the process may use them.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* e = dlerror();
        const std::string error = e ? e : "unknown error";
        m.status.module_broken = true;
        m.status.why_not = "the CUDA module " + path + " cannot be loaded: " + error;
        if (error.find("libcublas") != std::string::npos)
            m.status.why_not += " (it needs NVIDIA's cuBLAS 13: the package libcublas-13-0 from NVIDIA's CUDA repository, "
                                "or the CUDA toolkit in /usr/local/cuda)";
        return m;
    }
    const auto entry = reinterpret_cast<FolioCudaModuleEntry>(dlsym(handle, FOLIO_CUDA_MODULE_SYMBOL));
    const FolioCudaModule* api = entry ? entry() : nullptr;
    if (!api || api->abi != FOLIO_CUDA_MODULE_ABI) {
        m.status.module_broken = true;
        m.status.why_not = path + " is not a CUDA module of this Folio build (" +
                           (api ? "interface version " + std::to_string(api->abi) + ", expected " + std::to_string(FOLIO_CUDA_MODULE_ABI)
                                : std::string("no ") + FOLIO_CUDA_MODULE_SYMBOL + " symbol") +
                           "); reinstall folio-cuda with the same version as folio";
        dlclose(handle);
        return m;
    }
    m.api = api;
    m.status.module_path = path;
    m.status.description = api->description;
    char why[512] = {};
    m.status.devices = api->device_count(why, sizeof why);
    m.status.usable = m.status.devices > 0;
    if (!m.status.usable) m.status.why_not = why[0] ? why : "no usable CUDA device";
    return m;
}

// The module is loaded once per process, on first use: dlopen is process-wide state anyway, and
// every engine the process makes shares the one driver context.
const LoadedModule& loaded_module() {
    static std::once_flag once;
    static LoadedModule module;
    std::call_once(once, [] { module = load_module(); });
    return module;
}

}  // namespace

const CudaStatus& cuda_status() { return loaded_module().status; }

bool cuda_available() { return cuda_status().usable; }

DeviceMemoryReading read_device_memory(BackendKind kind, int device) {
    DeviceMemoryReading r;
    if (kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available())) {
        const LoadedModule& m = loaded_module();
        size_t total = 0, free = 0;
        char name[256] = {};
        if (m.api && m.api->device_memory(device, name, sizeof name, &total, &free)) {
            r.device = name;
            r.gpu = true;
            r.total = total;
            r.free = free;
            return r;
        }
    }
    r.device = "RAM";
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    uint64_t kb = 0;
    while (in >> key >> kb >> unit) {
        if (key == "MemTotal:") r.total = kb * 1024;
        if (key == "MemAvailable:") r.free = kb * 1024;
    }
    if (r.total == 0) r.total = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
    return r;
}

std::unique_ptr<Backend> make_backend(const Model& model, const BackendOptions& options) {
    BackendKind kind = options.kind;
    if (kind == BackendKind::Auto) {
        const CudaStatus& cuda = cuda_status();
        if (cuda.usable) {
            kind = BackendKind::Cuda;
        } else {
            // No module, no driver or no GPU: a CPU machine as intended (info, in the app's log). A
            // module that cannot be loaded is an install to fix: a warning, shown where it is seen.
            spdlog::log(cuda.module_broken ? spdlog::level::warn : spdlog::level::info,
                        "backend auto: using the CPU; CUDA is not used because {}", cuda.why_not);
            kind = BackendKind::Cpu;
        }
    }
    if (kind == BackendKind::Cuda) {
        const LoadedModule& m = loaded_module();
        if (!m.status.usable) throw Error("--backend cuda: " + m.status.why_not + "; use --backend cpu");
        spdlog::info("CUDA backend from {} ({})", m.status.module_path, m.status.description);
        return std::unique_ptr<Backend>(m.api->make_backend(model, options));
    }
    return make_cpu_backend(model, options);
}

}  // namespace folio
