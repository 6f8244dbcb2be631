#pragma once
// The single way kernels are launched, so that the same call runs on the device (<<<>>>) and in the
// SIMT harness (each thread a fiber). Arguments are converted to the kernel's parameter types and
// copied, as a real launch does.
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernels/common/cuda_check.h"
#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream, Args&&... args) {
    static_assert(sizeof...(Params) == sizeof...(Args), "launch: argument count does not match the kernel");
#if defined(FOLIO_SIMT)
    std::tuple<std::decay_t<Params>...> params(std::forward<Args>(args)...);
    simt::launch_on_stream(stream, reinterpret_cast<const void*>(kernel), grid, block, smem_bytes,
                           [kernel, params] { std::apply([kernel](auto... p) { kernel(p...); }, params); });
#else
    kernel<<<grid, block, smem_bytes, stream>>>(std::forward<Args>(args)...);
    check_launch("kernel launch");
#endif
}

// Raises a kernel's dynamic shared memory limit (needed above 48 KiB).
template <class... Params>
void allow_dynamic_smem(void (*kernel)(Params...), size_t bytes) {
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
          "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
}

}  // namespace folio::cuda
