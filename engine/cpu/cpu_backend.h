#pragma once
#include <memory>

#include "engine/backend/backend.h"

namespace folio {

// The CPU backend: fp32 activations and KV, fp32 accumulation, weights as in the checkpoint (AWQ
// dequantized on the fly inside the matmul), all cores. It is the oracle the CUDA backend is
// checked against.
std::unique_ptr<Backend> make_cpu_backend(const Model& model, const BackendOptions& options);

}  // namespace folio
