#include "engine/model/safetensors.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/core/error.h"

namespace folio {

int64_t TensorInfo::numel() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

std::string TensorInfo::shape_string() const {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

namespace {

uint64_t read_u64_le(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path)
    : file_(std::make_shared<MappedFile>(path)), tensors_(parse_safetensors(file_->data(), file_->size(), path)) {}

std::map<std::string, TensorInfo> parse_safetensors(const uint8_t* bytes, uint64_t size, const std::string& path) {
    std::map<std::string, TensorInfo> tensors;
    const auto fail = [&](const std::string& what) -> void { throw Error(path + ": " + what); };
    if (size < 8) fail("truncated file (" + std::to_string(size) + " bytes): not a safetensors file");
    const uint64_t header_len = read_u64_le(bytes);
    if (header_len > SafetensorsFile::kMaxHeaderBytes)
        fail("header length " + std::to_string(header_len) + " exceeds the " + std::to_string(SafetensorsFile::kMaxHeaderBytes) +
             "-byte limit: corrupt or not a safetensors file");
    if (header_len > size - 8)
        fail("header length " + std::to_string(header_len) + " runs past the end of the file (" +
             std::to_string(size) + " bytes): the file is truncated or corrupt");
    const uint8_t* data_start = bytes + 8 + header_len;
    const uint64_t data_size = size - 8 - header_len;

    nlohmann::json header;
    try {
        header = nlohmann::json::parse(bytes + 8, bytes + 8 + header_len);
    } catch (const nlohmann::json::exception& e) {
        fail(std::string("header is not valid JSON: ") + e.what());
    }
    if (!header.is_object()) fail("header is not a JSON object");

    struct Span { uint64_t begin, end; const std::string* name; };
    std::vector<Span> spans;
    for (auto it = header.begin(); it != header.end(); ++it) {
        const std::string& name = it.key();
        if (name == "__metadata__") continue;
        const auto& entry = it.value();
        const auto bad = [&](const std::string& what) { fail("tensor '" + name + "': " + what); };
        if (!entry.is_object()) bad("entry is not an object");
        if (!entry.contains("dtype") || !entry["dtype"].is_string()) bad("missing dtype");
        if (!entry.contains("shape") || !entry["shape"].is_array()) bad("missing shape");
        if (!entry.contains("data_offsets") || !entry["data_offsets"].is_array() || entry["data_offsets"].size() != 2)
            bad("missing or malformed data_offsets");
        TensorInfo info;
        info.name = name;
        info.file = path;
        const std::string dtype = entry["dtype"].get<std::string>();
        const auto dt = parse_dtype(dtype);
        if (!dt) bad("unsupported dtype " + dtype + " (supported: F32, F16, BF16, I32, I64, F8_E4M3, F8_E5M2)");
        info.dtype = *dt;
        uint64_t numel = 1;
        for (const auto& d : entry["shape"]) {
            if (!d.is_number_integer() || d.get<int64_t>() < 0) bad("shape holds a value that is not a non-negative integer");
            const uint64_t dim = d.get<uint64_t>();
            if (dim != 0 && numel > std::numeric_limits<uint64_t>::max() / 4 / dim) bad("shape is absurdly large");
            numel *= dim;
            info.shape.push_back(int64_t(dim));
        }
        const auto& off = entry["data_offsets"];
        if (!off[0].is_number_unsigned() && !(off[0].is_number_integer() && off[0].get<int64_t>() >= 0)) bad("data_offsets are not non-negative integers");
        if (!off[1].is_number_unsigned() && !(off[1].is_number_integer() && off[1].get<int64_t>() >= 0)) bad("data_offsets are not non-negative integers");
        const uint64_t begin = off[0].get<uint64_t>();
        const uint64_t end = off[1].get<uint64_t>();
        if (begin > end) bad("data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] are reversed");
        if (end > data_size)
            bad("data_offsets end " + std::to_string(end) + " lies past the end of the data (" + std::to_string(data_size) +
                " bytes): the file is truncated");
        const uint64_t expected = numel * dtype_size(info.dtype);
        if (end - begin != expected)
            bad("shape " + info.shape_string() + " x " + dtype + " needs " + std::to_string(expected) + " bytes but data_offsets span " +
                std::to_string(end - begin));
        info.data = data_start + begin;
        info.nbytes = expected;
        auto [pos, inserted] = tensors.emplace(name, std::move(info));
        if (end > begin) spans.push_back({begin, end, &pos->first});
    }
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    for (size_t i = 1; i < spans.size(); ++i) {
        if (spans[i].begin < spans[i - 1].end)
            fail("tensors '" + *spans[i - 1].name + "' and '" + *spans[i].name + "' overlap in the data section");
    }
    return tensors;
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second;
}

}  // namespace folio
