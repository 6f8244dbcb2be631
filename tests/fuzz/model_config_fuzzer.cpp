// config.json (engine/model/model_config.h), with its quantization_config: the input is the file's
// text. parse_model_config either refuses it with folio::Error or returns a config the engine can
// size buffers from: every size positive, heads a multiple of KV heads, an even head_dim, positive
// finite norm epsilon and RoPE settings, an AWQ group size that divides into whole nibbles.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/core/error.h"
#include "engine/model/model_config.h"

namespace {

void require(bool ok) {
    if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    folio::ModelConfig c;
    try {
        c = folio::parse_model_config(std::string(reinterpret_cast<const char*>(data), size), "config.json");
    } catch (const folio::Error&) {
        return 0;
    }
    require(c.hidden_size > 0 && c.intermediate_size > 0 && c.num_layers > 0 && c.vocab_size > 0);
    require(c.num_heads > 0 && c.num_kv_heads > 0 && c.num_heads % c.num_kv_heads == 0);
    require(c.head_dim > 0 && c.head_dim % 2 == 0);
    require(c.max_position_embeddings > 0);
    require(std::isfinite(c.rms_norm_eps) && c.rms_norm_eps > 0);
    require(std::isfinite(c.rope_theta) && c.rope_theta > 0);
    if (c.rope_scaling) {
        require(std::isfinite(c.rope_scaling->factor) && c.rope_scaling->factor > 0);
        require(std::isfinite(c.rope_scaling->low_freq_factor) && std::isfinite(c.rope_scaling->high_freq_factor));
    }
    if (c.sliding_window) require(*c.sliding_window > 0);
    if (c.quant.method == folio::QuantConfig::Method::Awq) require(c.quant.group_size > 0 && c.quant.group_size % 8 == 0);
    require(folio::attention_window(c) >= 0);
    return 0;
}
