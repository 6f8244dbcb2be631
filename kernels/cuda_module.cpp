// The entry point of libfolio-cuda.so (see cuda_module.h): the only symbol the module exports.
#include "kernels/cuda_module.h"

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "kernels/cuda_backend.h"

namespace {

void say(char* why, size_t size, const std::string& text) {
    if (why && size) std::snprintf(why, size, "%s", text.c_str());
}

int device_count(char* why, size_t why_size) {
    // The runtime is linked in statically and loads the driver library itself; asking for it first
    // gives the clearest message when there is no driver at all.
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!driver) {
        const char* e = dlerror();
        say(why, why_size, std::string("no NVIDIA driver is installed (") + (e ? e : "libcuda.so.1 not found") +
                               "); CUDA needs an NVIDIA GPU and its driver");
        return 0;
    }
    dlclose(driver);
    int n = 0;
    const cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        cudaGetLastError();
        int driver_version = 0;
        cudaDriverGetVersion(&driver_version);
        std::string text = std::string("the CUDA runtime cannot use the driver: ") + cudaGetErrorString(err);
        if (err == cudaErrorInsufficientDriver)
            text += " (the driver supports CUDA " + std::to_string(driver_version / 1000) + "." +
                    std::to_string(driver_version % 1000 / 10) + ", this build needs " + std::to_string(CUDART_VERSION / 1000) +
                    "." + std::to_string(CUDART_VERSION % 1000 / 10) + "; update the NVIDIA driver)";
        say(why, why_size, text);
        return 0;
    }
    if (n == 0) say(why, why_size, "the NVIDIA driver sees no GPU");
    return n;
}

folio::Backend* make_backend(const folio::Model& model, const folio::BackendOptions& options) {
    return folio::make_cuda_backend(model, options).release();
}

bool device_memory(int device, char* name, size_t name_size, size_t* total, size_t* free) {
    std::string n;
    if (!folio::cuda_device_memory(device, n, *total, *free)) return false;
    say(name, name_size, n);
    return true;
}

std::string describe() {
    int cublas = 0;
    cublasGetProperty(MAJOR_VERSION, &cublas);
    int cublas_minor = 0;
    cublasGetProperty(MINOR_VERSION, &cublas_minor);
    return "CUDA runtime " + std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) +
           " (static), cuBLAS " + std::to_string(cublas) + "." + std::to_string(cublas_minor);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const FolioCudaModule* folio_cuda_module(void) {
    static const std::string description = describe();
    static const FolioCudaModule module = {FOLIO_CUDA_MODULE_ABI, description.c_str(), device_count, make_backend, device_memory};
    return &module;
}
