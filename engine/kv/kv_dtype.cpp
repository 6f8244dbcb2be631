#include "engine/kv/kv_dtype.h"

#include "engine/core/error.h"

namespace folio {

KvCacheDtype parse_kv_cache_dtype(const std::string& v) {
    if (v == "auto") return KvCacheDtype::Auto;
    if (v == "fp8" || v == "fp8_e4m3") return KvCacheDtype::Fp8E4M3;
    if (v == "fp8_e5m2") return KvCacheDtype::Fp8E5M2;
    throw Error("unknown KV cache dtype '" + v + "': use auto (the backend's own: fp32 on the CPU, fp16 on CUDA), fp8 (= fp8_e4m3) or fp8_e5m2");
}

std::string kv_cache_dtype_name(KvCacheDtype t, const std::string& native) {
    switch (t) {
        case KvCacheDtype::Fp8E4M3: return "fp8_e4m3";
        case KvCacheDtype::Fp8E5M2: return "fp8_e5m2";
        case KvCacheDtype::Auto: break;
    }
    return native;
}

}  // namespace folio
