#pragma once
// Picks and makes a backend: the CPU backend always, the CUDA backend when this build has it. A
// module of its own above engine/cpu and kernels/, so that neither backend depends on the other and
// the abstract interface (engine/backend) depends on neither.
#include <cstdint>
#include <memory>
#include <string>

#include "engine/backend/backend.h"

namespace folio {

// True when a CUDA device is usable (built with CUDA and a device is present).
bool cuda_available();
// The memory a model would be planned against: the CUDA device's (total and free, as cudaMemGetInfo
// reports them) when `kind` is Cuda, or Auto with a device present; else physical RAM and what is
// available (MemAvailable). Never throws: unreadable figures are 0.
struct DeviceMemoryReading {
    std::string device;  // "NVIDIA GeForce RTX 4090" or "RAM"
    bool gpu = false;
    uint64_t total = 0;
    uint64_t free = 0;
};
DeviceMemoryReading read_device_memory(BackendKind kind, int device = 0);

// Makes the backend for a loaded model. `auto` picks CUDA when available. Throws folio::Error when
// the requested backend is not built in or no device is present.
std::unique_ptr<Backend> make_backend(const Model& model, const BackendOptions& options);

}  // namespace folio
