#include "engine/model/layer_plan.h"

#include "engine/core/error.h"

namespace folio {

namespace {

// One overload per step: a step added to LayerStep without a name here does not compile.
struct StepName {
    const char* operator()(const RmsNorm&) const { return "RMS norm"; }
    const char* operator()(const QkvProjection&) const { return "q/k/v projection"; }
    const char* operator()(const HeadNorm&) const { return "q/k head norm"; }
    const char* operator()(const Rope&) const { return "rotary embedding"; }
    const char* operator()(const Attention&) const { return "attention"; }
    const char* operator()(const OutProjection&) const { return "output projection"; }
    const char* operator()(const ResidualAdd&) const { return "residual add"; }
    const char* operator()(const GatedMlp&) const { return "gated MLP"; }
};

}  // namespace

const char* step_name(const LayerStep& step) { return std::visit(StepName{}, step); }

LinearRef ModelPlan::add_linear(std::string name, const Linear& l) {
    linears.push_back({std::move(name), &l});
    return {int(linears.size()) - 1};
}

TensorRef ModelPlan::add_tensor(std::string name, const FloatTensor& t) {
    tensors.push_back({std::move(name), &t});
    return {int(tensors.size()) - 1};
}

void refuse_plan(const std::string& backend, const ModelPlan& plan, int layer, const LayerStep& step, const std::string& what) {
    std::string where = plan.architecture;
    if (layer >= 0) where += " layer " + std::to_string(layer);
    throw Error(backend + ": " + where + ", " + step_name(step) + ": " + what);
}

}  // namespace folio
