#pragma once
// The subset of cuBLAS (cublas_v2.h) the CUDA backend calls, implemented on the host for FOLIO_SIMT
// builds, so that kernels/cublas_gemm.cpp compiles unchanged and the backend runs the same linear
// policy as on a GPU. The names, enum values and semantics are cuBLAS's: column-major matrices,
// C = alpha * op(A) * op(B) + beta * C, host-pointer scalars read at call time, C not read when
// beta is 0, and the work runs in the order of the handle's stream (recorded into a graph while
// that stream is captured; see simt_runtime.h).
//
// Implemented: cublasGemmEx with A and B fp16, C fp16 or fp32, CUBLAS_COMPUTE_32F (fp32 scalars,
// fp32 accumulation, one rounding to C's type at the end), CUBLAS_GEMM_DEFAULT, op N or T.
// Anything else returns CUBLAS_STATUS_NOT_SUPPORTED (a combination real cuBLAS may accept but this
// host version does not compute); arguments cuBLAS itself refuses return its status
// (CUBLAS_STATUS_INVALID_VALUE for negative sizes or leading dimensions that are too small,
// CUBLAS_STATUS_NOT_INITIALIZED for a null handle). Either way the reason goes to stderr and to
// folio::simt::cublas_last_refusal(). A call the backend adds that is not declared here does not
// compile in the SIMT build: that is the point.
//
// Matrices must lie inside live cudaMalloc allocations and C must not overlap A or B; otherwise
// the call throws folio::simt::SimtError, as a kernel reading out of bounds would fault.
#include <cstddef>
#include <cstdint>

#include "simt_runtime.h"

enum cublasStatus_t {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16,
};

// A fixed underlying type: a caller may pass any int (the real C API takes whatever it is given), and
// the harness must refuse a bad value, not be undefined behaviour for holding it.
enum cublasOperation_t : int { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2, CUBLAS_OP_CONJG = 3 };

// library_types.h: the element types a cuBLAS call names (the ones a GEMM could name, so that a
// call with another type compiles and is refused at run time with NOT_SUPPORTED).
enum cudaDataType_t {
    CUDA_R_32F = 0,
    CUDA_R_64F = 1,
    CUDA_R_16F = 2,
    CUDA_R_8I = 3,
    CUDA_R_32I = 10,
    CUDA_R_16BF = 14,
};
using cudaDataType = cudaDataType_t;

enum cublasComputeType_t {
    CUBLAS_COMPUTE_16F = 64,
    CUBLAS_COMPUTE_16F_PEDANTIC = 65,
    CUBLAS_COMPUTE_32F = 68,
    CUBLAS_COMPUTE_32F_PEDANTIC = 69,
    CUBLAS_COMPUTE_64F = 70,
    CUBLAS_COMPUTE_64F_PEDANTIC = 71,
    CUBLAS_COMPUTE_32I = 72,
    CUBLAS_COMPUTE_32I_PEDANTIC = 73,
    CUBLAS_COMPUTE_32F_FAST_16F = 74,
    CUBLAS_COMPUTE_32F_FAST_16BF = 75,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
};

enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_ALGO0 = 0, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 };

struct SimtCublasContext;
using cublasHandle_t = SimtCublasContext*;

cublasStatus_t cublasCreate(cublasHandle_t* handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
// Also resets the workspace to the library's default pool, as cuBLAS documents: a workspace of
// one's own has to be set again after every cublasSetStream.
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream);
// The pointer must be 256-byte aligned (else CUBLAS_STATUS_INVALID_VALUE), as cuBLAS requires.
cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void* workspace, size_t workspace_bytes);
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                            const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B, cudaDataType Btype,
                            int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo);
const char* cublasGetStatusName(cublasStatus_t status);
const char* cublasGetStatusString(cublasStatus_t status);

namespace folio::simt {

// What the emulated device's cuBLAS has executed (graph replays included), like a profiler's
// count: tests take differences around the code they check.
struct CublasActivity {
    uint64_t gemms = 0;
    uint64_t gemms_on_default_workspace = 0;  // ran without a workspace of the caller's (cublasSetWorkspace)
    uint64_t gemms_fp16_out = 0;
    uint64_t gemms_fp32_out = 0;
};
CublasActivity cublas_activity();

// Why the handle's last refused call was refused ("" when none was).
const char* cublas_last_refusal(cublasHandle_t handle);

}  // namespace folio::simt
