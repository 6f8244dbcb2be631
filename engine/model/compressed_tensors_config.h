#pragma once
// The 4-bit integer side of compressed-tensors (llm-compressor): quant_method "compressed-tensors"
// with format "pack-quantized" and int4 group-wise weights, activations unquantized (W4A16). Many
// recent "AWQ" repositories on the Hub are stored this way. The weights are repacked at load into
// Folio's AWQ layout (compressed_tensors_weights.h), so QuantConfig says Method::Awq with
// pack_quantized set. The FP8 schemes of compressed-tensors are fp8_config.h's.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/model/model_config.h"

namespace folio {

// True when quantization_config is compressed-tensors with format "pack-quantized" (at the top or in
// its config group).
bool is_pack_quantized(const nlohmann::json& quantization_config);

// Fills `out` (method Awq, pack_quantized) from quantization_config. Throws folio::Error naming
// `source` and the field for what Folio cannot run: a bit width other than 4, a float type, a
// strategy other than "group", a group size the 4-bit kernels do not run (32, 64, 128),
// actorder "group" (a g_idx permutation), quantized activations (W4A8), dynamic weights, several
// config groups, a kv_cache_scheme.
void parse_pack_quantized(const nlohmann::json& quantization_config, const std::string& source, QuantConfig& out);

// The list of module names under `key` ("ignore"), each "re:" pattern checked to compile. Throws
// folio::Error naming `source` and the entry.
std::vector<std::string> read_ignore_list(const nlohmann::json& quantization_config, const char* key, const std::string& source);

// Whether `module` matches compressed-tensors' ignore list: an exact module name ("lm_head"), or,
// with the prefix "re:", a regular expression matched from the start of the name (as Python's
// re.match). Both the FP8 and the int4 schemes use it.
bool module_ignored(const std::vector<std::string>& ignore, const std::string& module);

}  // namespace folio
