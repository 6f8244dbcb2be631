#pragma once
// cuBLAS for the backend's host code: the real library, or in FOLIO_SIMT builds the SIMT harness's
// host implementation of exactly the calls the backend makes (tests/simt/harness/cublas_host.h), so
// that the SIMT build runs the same linear policy as a GPU.
#if defined(FOLIO_SIMT)
#include "cublas_host.h"
#else
#include <cublas_v2.h>
#endif
