#pragma once
// Picks and makes a backend: the CPU backend always; the CUDA backend when its module
// (libfolio-cuda.so, kernels/cuda_module.h) can be loaded and a GPU is usable. A module of its own
// above engine/cpu and kernels/, so that neither backend depends on the other and the abstract
// interface (engine/backend) depends on neither. No executable links the CUDA libraries: the module
// is loaded with dlopen on first use, once per process.
#include <cstdint>
#include <memory>
#include <string>

#include "engine/backend/backend.h"

namespace folio {

// Where the CUDA backend stands in this process (the module is looked for and loaded on the first
// call): usable, or why not, in words a person can act on.
struct CudaStatus {
    bool usable = false;
    int devices = 0;
    bool module_found = false;   // a module file exists
    bool module_broken = false;  // ... but cannot be loaded or is from another build (an install to fix)
    std::string module_path;     // the module loaded, or empty
    std::string description;  // what the module holds (runtime and cuBLAS versions)
    std::string why_not;      // empty when usable
};
const CudaStatus& cuda_status();

// True when a CUDA device is usable (the module loaded and a device is present).
bool cuda_available();

// The memory a model would be planned against: the CUDA device's (total and free, as cudaMemGetInfo
// reports them, asked through the CUDA module) when `kind` is Cuda, or Auto with a device usable;
// else physical RAM and what is available (MemAvailable). Never throws: unreadable figures are 0.
struct DeviceMemoryReading {
    std::string device;  // "NVIDIA GeForce RTX 4090" or "RAM"
    bool gpu = false;
    uint64_t total = 0;
    uint64_t free = 0;
};
DeviceMemoryReading read_device_memory(BackendKind kind, int device = 0);

// Makes the backend for a loaded model. `auto` picks CUDA when available and otherwise the CPU,
// logging why; `cuda` throws folio::Error saying why it cannot be used.
std::unique_ptr<Backend> make_backend(const Model& model, const BackendOptions& options);

}  // namespace folio
