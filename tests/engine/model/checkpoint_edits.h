#pragma once
// What the quantized-checkpoint tests share: a fixture's tensors and config as editable values, and
// the error that loading (or only parsing) an edited copy gives.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/model/checkpoint.h"
#include "engine/model/model_config.h"
#include "engine/model/safetensors.h"
#include "engine/model/weights_loader.h"
#include "tests/engine/model/safetensors_writer.h"

namespace folio::test {

inline std::vector<RawTensor> fixture_tensors(const std::string& model) {
    SafetensorsFile f(fixture_path("models/" + model + "/model.safetensors"));
    std::vector<RawTensor> out;
    for (const auto& [n, t] : f.tensors())
        out.push_back({n, std::string(dtype_name(t.dtype)), t.shape, std::string(static_cast<const char*>(t.data), t.nbytes)});
    return out;
}

inline nlohmann::json fixture_config(const std::string& model) {
    return nlohmann::json::parse(read_file(fixture_path("models/" + model + "/config.json")));
}

inline RawTensor* find_tensor(std::vector<RawTensor>& t, const std::string& name) {
    for (auto& x : t)
        if (x.name == name) return &x;
    return nullptr;
}

inline void erase_tensor(std::vector<RawTensor>& t, const std::string& name) {
    for (auto it = t.begin(); it != t.end(); ++it)
        if (it->name == name) {
            t.erase(it);
            return;
        }
}

// What loading config + tensors from a folder of their own throws ("" when it loads).
inline std::string load_error(const nlohmann::json& config, const std::vector<RawTensor>& tensors) {
    TempDir d;
    write_file(d.file("config.json"), config.dump());
    write_safetensors(d.file("model.safetensors"), tensors);
    try {
        ModelConfig c = load_model_config(d.path());
        Checkpoint ck(d.path());
        load_weights(ck, c);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// What parsing stories260K's config with quantization_config `q` throws ("" when it parses).
inline std::string quantization_config_error(const nlohmann::json& q) {
    nlohmann::json c = fixture_config("stories260K");
    c["quantization_config"] = q;
    try {
        parse_model_config(c.dump(), "config.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace folio::test
