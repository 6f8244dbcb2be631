#pragma once
// The CUDA backend as a module loaded at run time: libfolio-cuda.so (kernels/, with the CUDA runtime
// linked in statically and cuBLAS as its one outside dependency) exports one C symbol,
// folio_cuda_module(), returning this table. The backend factory (engine/backends) dlopens it, so no
// executable links the CUDA libraries: on a machine without them Folio still starts, on the CPU, and
// says why CUDA is not used.
//
// Both sides are built from the same tree by the same compiler, so C++ types (the Model, the Backend,
// folio::Error thrown through make_backend) cross the boundary as they are; `abi` guards against a
// module from another build.
#include <cstddef>

#include "engine/backend/backend.h"

namespace folio {
struct Model;
}  // namespace folio

// Bump when the table or what its functions mean changes.
#define FOLIO_CUDA_MODULE_ABI 2
#define FOLIO_CUDA_MODULE_SYMBOL "folio_cuda_module"
#define FOLIO_CUDA_MODULE_FILE "libfolio-cuda.so"

extern "C" {

struct FolioCudaModule {
    int abi;                  // FOLIO_CUDA_MODULE_ABI of the build that made the module
    const char* description;  // what it holds, for the log: "CUDA runtime 13.0 (static), cuBLAS 13.1"
    // Usable devices; 0 with `why` (NUL-terminated, at most why_size bytes) saying why none: no
    // NVIDIA driver, a driver older than the runtime needs, no GPU visible.
    int (*device_count)(char* why, size_t why_size);
    // A new CUDA backend for `model`, owned by the caller; throws folio::Error as make_cuda_backend.
    folio::Backend* (*make_backend)(const folio::Model& model, const folio::BackendOptions& options);
    // Device `device`'s name (NUL-terminated, at most name_size bytes) and memory as cudaMemGetInfo
    // reports it; false when it cannot be read.
    bool (*device_memory)(int device, char* name, size_t name_size, size_t* total, size_t* free);
};

// The module's one exported symbol, and its type for dlsym.
const FolioCudaModule* folio_cuda_module(void);
typedef const FolioCudaModule* (*FolioCudaModuleEntry)(void);

}  // extern "C"
