#pragma once
#include <memory>

#include "engine/backend/backend.h"
#include "engine/model/layer_plan.h"

namespace folio {

// The CPU backend: fp32 activations and KV, fp32 accumulation, weights as in the checkpoint (AWQ
// repacked at load and multiplied in integers), all cores. Its exact mode
// (CpuActivations::Exact) is the oracle the CUDA backend and the fixtures are checked against; the
// default int8 mode trades about 1e-2 of the logit range for speed.
// It runs the model's plan (engine/model/layer_plan.h) step by step, each as the plan defines it.
std::unique_ptr<Backend> make_cpu_backend(const Model& model, const BackendOptions& options);

// Throws folio::Error (refuse_plan) naming the first step or option of `plan` the CPU backend does not
// run; make_cpu_backend calls it before anything is prepared.
void check_cpu_plan(const ModelPlan& plan);

}  // namespace folio
