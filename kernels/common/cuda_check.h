#pragma once
// CUDA runtime errors become folio::Error with the call that failed and the runtime's own words.
#include <string>

#include "engine/core/error.h"
#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

inline void check_launch(const char* what) { check(cudaGetLastError(), what); }

}  // namespace folio::cuda
