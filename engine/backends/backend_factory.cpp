#include "engine/backends/backend_factory.h"

#include <fstream>
#include <string>
#include <unistd.h>

#include "engine/core/error.h"
#include "engine/cpu/cpu_backend.h"

#ifdef FOLIO_HAVE_CUDA
#include "kernels/cuda_backend.h"
#endif

namespace folio {

bool cuda_available() {
#ifdef FOLIO_HAVE_CUDA
    return cuda_device_count() > 0;
#else
    return false;
#endif
}

DeviceMemoryReading read_device_memory(BackendKind kind, int device) {
    DeviceMemoryReading r;
#ifdef FOLIO_HAVE_CUDA
    if (kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available())) {
        size_t total = 0, free = 0;
        if (cuda_device_memory(device, r.device, total, free)) {
            r.gpu = true;
            r.total = total;
            r.free = free;
            return r;
        }
    }
#else
    (void)kind;
    (void)device;
#endif
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
    if (kind == BackendKind::Auto) kind = cuda_available() ? BackendKind::Cuda : BackendKind::Cpu;
    if (kind == BackendKind::Cuda) {
#ifdef FOLIO_HAVE_CUDA
        if (cuda_device_count() == 0)
            throw Error("--backend cuda: no CUDA device is present (is the NVIDIA driver loaded?); use --backend cpu");
        return make_cuda_backend(model, options);
#else
        throw Error("--backend cuda: this build has no CUDA backend (rebuild with the CUDA toolkit at "
                    "/usr/local/cuda and -DFOLIO_CUDA=ON); use --backend cpu");
#endif
    }
    return make_cpu_backend(model, options);
}

}  // namespace folio
