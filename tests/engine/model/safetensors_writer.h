#pragma once
// Writes small .safetensors files (valid or deliberately broken) for loader tests.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/fixtures.h"

namespace folio::test {

struct RawTensor {
    std::string name;
    std::string dtype;  // as written in the header, e.g. "F32"
    std::vector<int64_t> shape;
    std::string bytes;
};

// A header from `header` (used verbatim) followed by `data`; `header_len` overrides the length field.
inline void write_raw_safetensors(const std::string& path, const std::string& header, const std::string& data,
                                  int64_t header_len = -1) {
    std::string out(8, '\0');
    uint64_t n = header_len < 0 ? header.size() : uint64_t(header_len);
    for (int i = 0; i < 8; ++i) out[size_t(i)] = char((n >> (8 * i)) & 0xff);
    write_file(path, out + header + data);
}

// Tensors laid out back to back.
inline void write_safetensors(const std::string& path, const std::vector<RawTensor>& tensors) {
    nlohmann::json h = nlohmann::json::object();
    std::string data;
    for (const auto& t : tensors) {
        h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
        data += t.bytes;
    }
    write_raw_safetensors(path, h.dump(), data);
}

inline std::string f32_bytes(const std::vector<float>& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

}  // namespace folio::test
