#pragma once
// VRAM, utilisation, temperature and power for the monitor: cudaMemGetInfo for memory, NVML for the
// rest when libnvidia-ml is present (loaded with dlopen; the toolkit ships no nvml.h, so the few
// entry points are declared here). Without NVML the other fields read -1.
#include <cstdint>

namespace folio::cuda {

struct GpuReading {
    uint64_t used = 0, total = 0;
    int utilization_pct = -1;
    int temperature_c = -1;
    int power_w = -1;
};

class GpuMonitor {
public:
    explicit GpuMonitor(int device);
    ~GpuMonitor();
    GpuMonitor(const GpuMonitor&) = delete;
    GpuMonitor& operator=(const GpuMonitor&) = delete;

    // Callable from any thread (the UI polls it while the engine thread runs steps).
    GpuReading read() const;
    bool has_nvml() const { return nvml_device_ != nullptr; }

private:
    struct Api;
    void* lib_ = nullptr;
    Api* api_ = nullptr;
    void* nvml_device_ = nullptr;
    int device_ = 0;
};

}  // namespace folio::cuda
