#pragma once
// Loads a fixture model's config and weights without a tokenizer (the CPU tests feed token ids).
#include <memory>
#include <string>

#include "engine/backend/backend.h"
#include "engine/model/checkpoint.h"
#include "engine/model/model.h"
#include "engine/model/weights_loader.h"

namespace folio::test {

inline std::unique_ptr<Model> load_weights_only(const std::string& dir) {
    auto m = std::make_unique<Model>();
    m->spec = dir;
    m->name = dir;
    m->config = load_model_config(dir);
    Checkpoint ck(dir);
    m->weights = load_weights(ck, m->config);
    return m;
}

// The CPU backend's exact mode: what every comparison with a fixture or a reference asks for (the
// default is the fast int8 mode).
inline BackendOptions exact_cpu() {
    BackendOptions o;
    o.cpu_activations = CpuActivations::Exact;
    return o;
}

}  // namespace folio::test
