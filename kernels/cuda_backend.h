#pragma once
// The CUDA backend: the engine's Backend on one NVIDIA GPU (kernels/ holds its parts).
#include <cstddef>
#include <memory>
#include <string>

#include "engine/backend/backend.h"
#include "kernels/linear_path_counts.h"

namespace folio {

struct Model;

// Usable CUDA devices (0 when the driver or a device is missing; never throws).
int cuda_device_count();

// The device's name and its total and free memory (cudaMemGetInfo: this makes the device's context
// in the calling process, as loading a model would). False when the device cannot be read.
bool cuda_device_memory(int device, std::string& name, size_t& total, size_t& free);

// Uploads the model to options.device and profiles the activation peak. Throws folio::Error with
// sizes when the model does not fit or uses shapes the kernels do not support.
std::unique_ptr<Backend> make_cuda_backend(const Model& model, const BackendOptions& options);

// The products each linear path of a CUDA backend has enqueued since it was made (its activation
// profile at construction included), for tests that assert which path the policy took. Throws
// folio::Error when `backend` is not a CUDA backend.
cuda::LinearPathCounts cuda_linear_path_counts(const Backend& backend);

}  // namespace folio
