// A .safetensors file (engine/model/safetensors.h): the whole file as the input. Whatever the header
// says, parse_safetensors either refuses it with folio::Error or returns tensors whose bytes lie
// inside the file, do not overlap and match shape x dtype; the target reads every byte it was given
// (ASan reports a read outside).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "engine/core/error.h"
#include "engine/model/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::map<std::string, folio::TensorInfo> tensors;
    try {
        tensors = folio::parse_safetensors(data, size, "fuzz.safetensors");
    } catch (const folio::Error&) {
        return 0;
    }
    uint64_t sum = 0;
    for (const auto& [name, t] : tensors) {
        if (t.nbytes != uint64_t(t.numel()) * folio::dtype_size(t.dtype)) __builtin_trap();
        const auto* p = static_cast<const uint8_t*>(t.data);
        if (t.nbytes && (p < data || p + t.nbytes > data + size)) __builtin_trap();
        for (uint64_t i = 0; i < t.nbytes; ++i) sum += p[i];
    }
    // Keep the reads from being optimised away.
    asm volatile("" : : "r"(sum) : "memory");
    return 0;
}
