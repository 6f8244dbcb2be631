#pragma once
// The FP8 side of config.json's quantization_config: AutoFP8 ("quant_method": "fp8") and
// llm-compressor ("quant_method": "compressed-tensors", "format": "float-quantized"), as vLLM reads
// them (see /work/shared/docs/formats-and-protocols.md, A1).
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "engine/model/model_config.h"

namespace folio {

// True when quantization_config names an FP8 method this parser owns.
bool is_fp8_quant_method(const nlohmann::json& quantization_config);

// Fills `out` (method Fp8) from quantization_config. Throws folio::Error naming `source` and the field
// for what Folio cannot run: block-wise scales (weight_block_size), integer or 4-bit schemes, group
// strategies, asymmetric weights, several config groups, unknown formats.
void parse_fp8_quant(const nlohmann::json& quantization_config, const std::string& source, QuantConfig& out);

// Whether `module` (e.g. "model.layers.3.self_attn.q_proj", "lm_head") stays unquantized.
bool fp8_ignored(const Fp8Config& config, const std::string& module);

}  // namespace folio
