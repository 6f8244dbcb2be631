#include "engine/model/checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/core/error.h"

namespace folio {

namespace fs = std::filesystem;

namespace {

std::string shape_str(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::vector<std::string> shard_files(const std::string& dir) {
    const fs::path index = fs::path(dir) / "model.safetensors.index.json";
    if (fs::exists(index)) {
        std::ifstream in(index);
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(in);
        } catch (const nlohmann::json::exception& e) {
            throw Error(index.string() + ": not valid JSON: " + e.what());
        }
        if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
            throw Error(index.string() + ": no \"weight_map\" object");
        std::set<std::string> names;
        for (const auto& [tensor, file] : j["weight_map"].items()) {
            if (!file.is_string()) throw Error(index.string() + ": weight_map entry for '" + tensor + "' is not a file name");
            const std::string f = file.get<std::string>();
            if (f.find('/') != std::string::npos || f == ".." || f.empty())
                throw Error(index.string() + ": weight_map entry for '" + tensor + "' names '" + f + "', not a file in the folder");
            names.insert(f);
        }
        std::vector<std::string> out;
        for (const auto& f : names) {
            const fs::path p = fs::path(dir) / f;
            if (!fs::exists(p)) throw Error(index.string() + " lists shard " + f + ", which is missing from " + dir);
            out.push_back(p.string());
        }
        return out;
    }
    const fs::path single = fs::path(dir) / "model.safetensors";
    if (fs::exists(single)) return {single.string()};
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".safetensors" && e.path().filename().string().rfind("model", 0) == 0)
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    if (out.empty()) {
        const bool has_bin = fs::exists(fs::path(dir) / "pytorch_model.bin") || fs::exists(fs::path(dir) / "pytorch_model.bin.index.json");
        throw Error("no model.safetensors or model.safetensors.index.json in " + dir +
                    (has_bin ? " (only PyTorch .bin weights were found: convert them to safetensors)" : ""));
    }
    return out;
}

}  // namespace

Checkpoint::Checkpoint(const std::string& model_dir) : dir_(model_dir) {
    for (const auto& path : shard_files(model_dir)) {
        files_.push_back(std::make_unique<SafetensorsFile>(path));
        for (const auto& [name, info] : files_.back()->tensors()) {
            auto [it, inserted] = index_.emplace(name, &info);
            if (!inserted) throw Error("tensor '" + name + "' appears in both " + it->second->file + " and " + path);
        }
    }
}

const TensorInfo* Checkpoint::find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : it->second;
}

const TensorInfo& Checkpoint::require(const std::string& name, const std::vector<DType>& dtypes,
                                      const std::vector<int64_t>& shape) const {
    const TensorInfo* t = find(name);
    if (!t) throw Error("tensor '" + name + "' is missing from the checkpoint in " + dir_);
    if (std::find(dtypes.begin(), dtypes.end(), t->dtype) == dtypes.end()) {
        std::string want;
        for (size_t i = 0; i < dtypes.size(); ++i) want += (i ? " or " : "") + std::string(dtype_name(dtypes[i]));
        throw Error(t->file + ": tensor '" + name + "' has dtype " + std::string(dtype_name(t->dtype)) + ", expected " + want);
    }
    if (t->shape != shape)
        throw Error(t->file + ": tensor '" + name + "' has shape " + t->shape_string() + ", expected " + shape_str(shape) +
                    " from config.json");
    return *t;
}

std::vector<std::shared_ptr<const MappedFile>> Checkpoint::mappings() const {
    std::vector<std::shared_ptr<const MappedFile>> out;
    for (const auto& f : files_) out.push_back(f->mapping());
    return out;
}

std::vector<std::string> Checkpoint::tensor_names() const {
    std::vector<std::string> out;
    for (const auto& [name, info] : index_) out.push_back(name);
    return out;
}

}  // namespace folio
