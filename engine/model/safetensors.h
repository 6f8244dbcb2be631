#pragma once
// One memory-mapped .safetensors file with a validated header. Every check a corrupt or hostile file
// could fail is made when the file is opened, so later reads through a TensorInfo are always inside
// the mapping.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/dtype.h"
#include "engine/core/mapped_file.h"

namespace folio {

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    const void* data = nullptr;  // inside the mapping
    uint64_t nbytes = 0;
    std::string file;            // the .safetensors file it came from, for messages

    int64_t numel() const;
    std::string shape_string() const;  // "[4096, 11008]"
};

// The validation SafetensorsFile makes, on a whole file held in memory (`path` names it in messages):
// the tensors of its header, their data pointing into `bytes`. Throws folio::Error as the constructor.
std::map<std::string, TensorInfo> parse_safetensors(const uint8_t* bytes, uint64_t size, const std::string& path);

class SafetensorsFile {
public:
    // Opens and validates: header length within the file and below a sane bound, JSON that parses,
    // supported dtypes, shapes of non-negative sizes, data_offsets inside the data section, not
    // overlapping, and shape x dtype == byte length. Throws folio::Error naming the file and tensor.
    explicit SafetensorsFile(const std::string& path);

    const std::string& path() const { return file_->path(); }
    const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
    const TensorInfo* find(const std::string& name) const;
    std::shared_ptr<const MappedFile> mapping() const { return file_; }

    // Upper bound on the JSON header, far above any real checkpoint's (a 70B model's is ~100 KB).
    static constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

private:
    std::shared_ptr<const MappedFile> file_;
    std::map<std::string, TensorInfo> tensors_;
};

}  // namespace folio
