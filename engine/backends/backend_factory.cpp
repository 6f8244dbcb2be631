#include "engine/backends/backend_factory.h"

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
