#pragma once
// FP8 linears and KV-cache scales from a checkpoint: the codes stay in the memory map, the scales
// are read (F32/BF16/F16, 0-dim or [1] per tensor, [out, 1] or [out] per channel), checked and kept
// as one fp32 scale per output row.
#include <memory>
#include <string>
#include <vector>

#include "engine/model/checkpoint.h"
#include "engine/model/model_config.h"
#include "engine/model/weights.h"

namespace folio {

// The FP8 linear `module` ([out, in]): `module.weight` F8_E4M3 or F8_E5M2, `module.weight_scale`,
// `module.input_scale` under a static activation scheme. Owned scale arrays go to `storage`. Throws
// folio::Error naming the tensor and file for a wrong dtype or shape, a NaN, infinite or negative
// scale, NaN codes in the weights, or a missing tensor.
Linear load_fp8_linear(const Checkpoint& ck, const Fp8Config& config, const std::string& module, int in, int out,
                       std::vector<std::shared_ptr<const void>>& storage);

// Throws the error for an F8 tensor where config.json describes no FP8 quantization (or the module
// is in the ignore list): `why` says which of the two.
[[noreturn]] void refuse_unexpected_fp8(const TensorInfo& t, const std::string& why);

// Per-layer k_scale/v_scale (compressed-tensors `self_attn.k_scale`, AutoFP8 `k_proj.output_scale`,
// ModelOpt `k_proj.k_scale`, the older single `self_attn.kv_scale`) into `weights.layers`, when the
// checkpoint has them; required for every layer when the config has a kv_cache_scheme, and all or
// none otherwise. Each must be finite and positive.
void load_kv_scales(const Checkpoint& ck, const ModelConfig& config, ModelWeights& weights);

// Reads one scalar scale tensor (0-dim or [1]) of any float dtype.
float read_scalar_scale(const TensorInfo& t);

}  // namespace folio
