#pragma once
#include <memory>

#include "engine/backend/backend.h"

namespace folio {

// The CPU backend: fp32 activations and KV, fp32 accumulation, weights as in the checkpoint (AWQ
// repacked at load and multiplied in integers), all cores. Its exact mode
// (CpuActivations::Exact) is the oracle the CUDA backend and the fixtures are checked against; the
// default int8 mode trades about 1e-2 of the logit range for speed.
std::unique_ptr<Backend> make_cpu_backend(const Model& model, const BackendOptions& options);

}  // namespace folio
