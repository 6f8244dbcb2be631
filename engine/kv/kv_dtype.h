#pragma once
// The element type of the paged KV cache. Auto keeps each backend's native type (fp32 on the CPU,
// the exact oracle; fp16 on CUDA); the FP8 types store one byte per element, quantized on write as
// code = fp8(x / scale) and read as code * scale with one k_scale and one v_scale per layer
// (vLLM's --kv-cache-dtype; "fp8" means E4M3).
#include <cstddef>
#include <cstdint>
#include <string>

namespace folio {

enum class KvCacheDtype : uint8_t { Auto, Fp8E4M3, Fp8E5M2 };

inline bool is_fp8(KvCacheDtype t) { return t != KvCacheDtype::Auto; }

// Parses auto, fp8, fp8_e4m3, fp8_e5m2; throws folio::Error naming the choices otherwise.
KvCacheDtype parse_kv_cache_dtype(const std::string& value);

// "fp8_e4m3", "fp8_e5m2", or the backend's own type for Auto (native: "fp32", "fp16").
std::string kv_cache_dtype_name(KvCacheDtype t, const std::string& native);

// vLLM's calculate_kv_scales divides the first batch's max |K| by 200 and max |V| by 100 (its
// K_SCALE_CONSTANT / V_SCALE_CONSTANT), leaving headroom below E4M3's 448 for later, larger values.
inline constexpr float kKvScaleKRange = 200.0f;
inline constexpr float kKvScaleVRange = 100.0f;

}  // namespace folio
