#pragma once
// Writes a .safetensors file tensor by tensor, so that a model larger than memory can be exported
// without a copy of it: the header (names, dtypes, shapes, offsets) is written first from the sizes
// the caller declares, then each tensor's bytes as its producer makes them.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace folio {

struct TensorToWrite {
    std::string name;
    std::string dtype;            // as safetensors spells it: "F16", "BF16", "F32", "I32"
    std::vector<int64_t> shape;
    size_t bytes = 0;             // must equal shape x dtype size
    // Appends exactly `bytes` bytes to `out` (called once, in order, when the tensor is written).
    std::function<void(std::string& out)> produce;
};

// Writes `tensors` back to back into `path`. Throws folio::Error naming the file or tensor when the
// file cannot be written or a producer gives the wrong number of bytes.
void write_safetensors_file(const std::string& path, const std::vector<TensorToWrite>& tensors);

}  // namespace folio
