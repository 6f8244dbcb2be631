#pragma once
#include <memory>

#include "engine/backend/backend.h"
#include "engine/model/layer_plan.h"

namespace folio {

// The CPU backend: fp32 activations and KV, fp32 accumulation, weights as in the checkpoint (AWQ
// dequantized on the fly inside the matmul), all cores. It is the oracle the CUDA backend is
// checked against.
// It runs the model's plan (engine/model/layer_plan.h) step by step, each as the plan defines it.
std::unique_ptr<Backend> make_cpu_backend(const Model& model, const BackendOptions& options);

// Throws folio::Error (refuse_plan) naming the first step or option of `plan` the CPU backend does not
// run; make_cpu_backend calls it before anything is prepared.
void check_cpu_plan(const ModelPlan& plan);

}  // namespace folio
