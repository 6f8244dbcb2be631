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

}  // namespace folio
