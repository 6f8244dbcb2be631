#include "engine/model/safetensors_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"

namespace folio {

void write_safetensors_file(const std::string& path, const std::vector<TensorToWrite>& tensors) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    header["__metadata__"] = {{"format", "pt"}};
    size_t offset = 0;
    for (const auto& t : tensors) {
        header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes}}};
        offset += t.bytes;
    }
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as the reference writer does
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!f) throw Error("cannot write " + path + ": " + std::strerror(errno));
    const auto put = [&](const void* p, size_t n) {
        if (std::fwrite(p, 1, n, f.get()) != n) throw Error("cannot write " + path + ": " + std::strerror(errno));
    };
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = uint8_t((uint64_t(h.size()) >> (8 * i)) & 0xff);
    put(len, 8);
    put(h.data(), h.size());
    std::string buf;
    for (const auto& t : tensors) {
        buf.clear();
        t.produce(buf);
        if (buf.size() != t.bytes)
            throw Error("writing " + path + ": tensor " + t.name + " produced " + std::to_string(buf.size()) + " bytes, not the declared " +
                        std::to_string(t.bytes));
        put(buf.data(), buf.size());
    }
    if (std::fflush(f.get()) != 0) throw Error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace folio
