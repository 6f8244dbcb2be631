#pragma once
// Picks and makes a backend: the CPU backend always, the CUDA backend when this build has it. A
// module of its own above engine/cpu and kernels/, so that neither backend depends on the other and
// the abstract interface (engine/backend) depends on neither.
#include <memory>

#include "engine/backend/backend.h"

namespace folio {

// True when a CUDA device is usable (built with CUDA and a device is present).
bool cuda_available();
// Makes the backend for a loaded model. `auto` picks CUDA when available. Throws folio::Error when
// the requested backend is not built in or no device is present.
std::unique_ptr<Backend> make_backend(const Model& model, const BackendOptions& options);

}  // namespace folio
