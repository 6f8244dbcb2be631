# The CUDA backend's sources, listed once for the two builds that compile them: folio_cuda (nvcc, the
# device build, kernels/CMakeLists.txt) and folio_cuda_simt (g++ against the SIMT harness,
# tests/simt/CMakeLists.txt).
set(_k ${CMAKE_CURRENT_LIST_DIR})
# Kernels and their host launch functions.
set(FOLIO_CUDA_KERNEL_SOURCES
  ${_k}/activation.cu
  ${_k}/attention_decode.cu
  ${_k}/attention_prefill.cu
  ${_k}/attention_prefill_mma.cu
  ${_k}/awq_dequant.cu
  ${_k}/awq_gemv.cu
  ${_k}/convert.cu
  ${_k}/dense_gemv.cu
  ${_k}/embedding.cu
  ${_k}/fp8_gemv.cu
  ${_k}/gemm_fp8_mma.cu
  ${_k}/gemm_mma.cu
  ${_k}/qkv_epilogue.cu
  ${_k}/rms_norm.cu
  ${_k}/rope_kv.cu
  ${_k}/sampling.cu
)
# Host code that runs the kernels; portable between the two builds (the SIMT build's cuBLAS is the
# harness's host implementation, tests/simt/harness/cublas_host.cpp).
set(FOLIO_CUDA_HOST_SOURCES
  ${_k}/cublas_gemm.cpp
  ${_k}/cuda_backend.cpp
  ${_k}/decode_graphs.cpp
  ${_k}/device_model.cpp
  ${_k}/gpu_monitor.cpp
  ${_k}/launch_plan.cpp
  ${_k}/linear_runner.cpp
  ${_k}/memory_plan.cpp
  ${_k}/model_runner.cpp
  ${_k}/step_inputs.cpp
)
unset(_k)
