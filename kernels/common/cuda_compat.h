#pragma once
// The one include that gives kernels and the backend's host code the CUDA types and runtime API:
// the real toolkit headers, or in FOLIO_SIMT builds the SIMT harness that runs the same sources as
// host C++ (tests/simt/harness).
#if defined(FOLIO_SIMT)
#include "simt_device.h"
#include "simt_launch.h"
#include "simt_ptx.h"
#include "simt_runtime.h"
#define FOLIO_UNROLL
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define FOLIO_UNROLL _Pragma("unroll")
#endif
