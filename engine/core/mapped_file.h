#pragma once
// A read-only memory map of a whole file (RAII). Checkpoint tensors point into it without copies.
#include <cstddef>
#include <cstdint>
#include <string>

namespace folio {

class MappedFile {
public:
    // Throws folio::Error naming the path when the file cannot be opened or mapped.
    explicit MappedFile(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }
    const std::string& path() const { return path_; }

private:
    std::string path_;
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace folio
