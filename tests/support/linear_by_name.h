#pragma once
// The loaded Linear a checkpoint tensor name ("model.layers.N.self_attn.q_proj.weight") became: the
// checkpoint and backend tests compare a linear with the tensor it was read from.
#include <cstring>
#include <string>

#include "engine/model/weights.h"

namespace folio::test {

// nullptr when the name is not one of a decoder layer's seven projections.
inline Linear* linear_by_name(ModelWeights& w, const std::string& name) {
    const std::string prefix = "model.layers.";
    if (name.compare(0, prefix.size(), prefix) != 0) return nullptr;
    const size_t layer = std::stoul(name.substr(prefix.size()));
    if (layer >= w.layers.size()) return nullptr;
    LayerWeights& L = w.layers[layer];
    for (auto [suffix, lin] : {std::pair{"self_attn.q_proj.weight", &L.q_proj}, {"self_attn.k_proj.weight", &L.k_proj},
                               {"self_attn.v_proj.weight", &L.v_proj}, {"self_attn.o_proj.weight", &L.o_proj},
                               {"mlp.gate_proj.weight", &L.gate_proj}, {"mlp.up_proj.weight", &L.up_proj},
                               {"mlp.down_proj.weight", &L.down_proj}})
        if (name.size() > std::strlen(suffix) && name.compare(name.size() - std::strlen(suffix), std::string::npos, suffix) == 0) return lin;
    return nullptr;
}

}  // namespace folio::test
