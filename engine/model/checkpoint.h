#pragma once
// All tensors of a checkpoint folder: `model.safetensors`, or shards listed by
// `model.safetensors.index.json` (or, without an index, every *.safetensors file in the folder).
#include <memory>
#include <string>
#include <vector>

#include "engine/model/safetensors.h"

namespace folio {

class Checkpoint {
public:
    // Throws folio::Error when no weights file is found, a shard named by the index is missing, a
    // tensor appears in two files, or any file fails validation.
    explicit Checkpoint(const std::string& model_dir);

    const TensorInfo* find(const std::string& name) const;
    // The tensor, which must exist with this dtype (one of `dtypes`) and shape; otherwise a
    // folio::Error naming the tensor, its file and what was expected.
    const TensorInfo& require(const std::string& name, const std::vector<DType>& dtypes,
                              const std::vector<int64_t>& shape) const;
    bool contains(const std::string& name) const { return find(name) != nullptr; }
    std::vector<std::shared_ptr<const MappedFile>> mappings() const;
    std::vector<std::string> tensor_names() const;
    const std::string& dir() const { return dir_; }

private:
    std::string dir_;
    std::vector<std::unique_ptr<SafetensorsFile>> files_;
    std::map<std::string, const TensorInfo*> index_;
};

}  // namespace folio
