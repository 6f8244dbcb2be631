#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace folio {

// Element types a checkpoint may hold. Only these are accepted from safetensors files. The 8-bit
// floats (OCP E4M3 / E5M2, engine/core/fp8.h) hold FP8-quantized weights; I64 holds small metadata
// (compressed-tensors' weight_shape).
enum class DType : uint8_t { F32, F16, BF16, I32, F8_E4M3, F8_E5M2, I64 };

constexpr size_t dtype_size(DType t) {
    switch (t) {
        case DType::F32: return 4;
        case DType::F16: return 2;
        case DType::BF16: return 2;
        case DType::I32: return 4;
        case DType::F8_E4M3: return 1;
        case DType::F8_E5M2: return 1;
        case DType::I64: return 8;
    }
    return 0;
}

constexpr std::string_view dtype_name(DType t) {
    switch (t) {
        case DType::F32: return "F32";
        case DType::F16: return "F16";
        case DType::BF16: return "BF16";
        case DType::I32: return "I32";
        case DType::F8_E4M3: return "F8_E4M3";
        case DType::F8_E5M2: return "F8_E5M2";
        case DType::I64: return "I64";
    }
    return "?";
}

// Parses a safetensors dtype string ("F32", "F16", "BF16", "I32", "I64", "F8_E4M3", "F8_E5M2"); nullopt for
// anything else.
inline std::optional<DType> parse_dtype(std::string_view s) {
    if (s == "F32") return DType::F32;
    if (s == "F16") return DType::F16;
    if (s == "BF16") return DType::BF16;
    if (s == "I32") return DType::I32;
    if (s == "I64") return DType::I64;
    if (s == "F8_E4M3") return DType::F8_E4M3;
    if (s == "F8_E5M2") return DType::F8_E5M2;
    return std::nullopt;
}

inline constexpr bool is_fp8(DType t) { return t == DType::F8_E4M3 || t == DType::F8_E5M2; }

}  // namespace folio
