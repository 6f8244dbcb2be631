#include "engine/backend/backend.h"

#include "engine/core/error.h"

namespace folio {

Backend::Backend() = default;
Backend::~Backend() = default;

bool Backend::forward_and_sample(const ForwardBatch&, const std::vector<SamplingRow>&, std::vector<int32_t>&) {
    return false;
}

BackendKind parse_backend_kind(const std::string& s) {
    if (s == "auto") return BackendKind::Auto;
    if (s == "cpu") return BackendKind::Cpu;
    if (s == "cuda") return BackendKind::Cuda;
    throw Error("unknown backend '" + s + "': use auto, cpu or cuda");
}

CpuActivations parse_cpu_activations(const std::string& s) {
    if (s == "int8") return CpuActivations::Int8;
    if (s == "exact") return CpuActivations::Exact;
    throw Error("--cpu-activations takes exact or int8, got '" + s + "'");
}

const char* cpu_activations_name(CpuActivations a) { return a == CpuActivations::Exact ? "exact" : "int8"; }

}  // namespace folio
