#include "kernels/gpu_monitor.h"

#include <dlfcn.h>

#include <type_traits>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

// The NVML C API, as documented (nvml.h is not part of the CUDA toolkit install here).
namespace nvml {
using Return = int;  // NVML_SUCCESS == 0
using Device = void*;
struct Utilization {
    unsigned int gpu;
    unsigned int memory;
};
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
}  // namespace nvml

struct GpuMonitor::Api {
    nvml::Return (*init)() = nullptr;
    nvml::Return (*shutdown)() = nullptr;
    nvml::Return (*by_pci)(const char*, nvml::Device*) = nullptr;
    nvml::Return (*utilization)(nvml::Device, nvml::Utilization*) = nullptr;
    nvml::Return (*temperature)(nvml::Device, int, unsigned int*) = nullptr;
    nvml::Return (*power)(nvml::Device, unsigned int*) = nullptr;
};

GpuMonitor::GpuMonitor(int device) : device_(device) {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) return;
    api_ = new Api;
    auto sym = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib_, name));
        return fn != nullptr;
    };
    const bool ok = sym(api_->init, "nvmlInit_v2") && sym(api_->shutdown, "nvmlShutdown") &&
                    sym(api_->by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
                    sym(api_->utilization, "nvmlDeviceGetUtilizationRates") &&
                    sym(api_->temperature, "nvmlDeviceGetTemperature") && sym(api_->power, "nvmlDeviceGetPowerUsage");
    char bus[64] = {0};
    // NVML numbers devices differently from CUDA: match them by PCI bus id.
    if (!ok || api_->init() != 0) return;
    if (cudaDeviceGetPCIBusId(bus, sizeof(bus), device) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    nvml::Device d = nullptr;
    if (api_->by_pci(bus, &d) == 0) nvml_device_ = d;
}

GpuMonitor::~GpuMonitor() {
    if (api_ && api_->shutdown && nvml_device_) api_->shutdown();
    delete api_;
    if (lib_) dlclose(lib_);
}

GpuReading GpuMonitor::read() const {
    GpuReading r;
    size_t free_b = 0, total_b = 0;
    // The current device is per thread: a caller other than the engine thread may not have it set.
    if (cudaSetDevice(device_) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
        r.total = total_b;
        r.used = total_b - free_b;
    } else {
        cudaGetLastError();
    }
    if (!nvml_device_) return r;
    nvml::Utilization u{};
    if (api_->utilization(nvml_device_, &u) == 0) r.utilization_pct = int(u.gpu);
    unsigned int t = 0;
    if (api_->temperature(nvml_device_, nvml::kTemperatureGpu, &t) == 0) r.temperature_c = int(t);
    unsigned int mw = 0;
    if (api_->power(nvml_device_, &mw) == 0) r.power_w = int((mw + 500) / 1000);
    return r;
}

}  // namespace folio::cuda
