#include "engine/hub/catalog.h"

#include "engine/core/error.h"
#include "engine/hub/repo_ref.h"

namespace folio::hub {

using nlohmann::json;

Catalog parse_catalog(const std::string& json_text, const std::string& source) {
    json j;
    try {
        j = json::parse(json_text);
    } catch (const json::exception& e) {
        throw Error(source + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object() || !j.contains("models") || !j["models"].is_array())
        throw Error(source + ": expected an object with a \"models\" list");
    Catalog c;
    c.title = j.value("title", "");
    int i = 0;
    for (const json& m : j["models"]) {
        const std::string where = source + ": models[" + std::to_string(i++) + "]";
        if (!m.is_object()) throw Error(where + " is not an object");
        auto text = [&](const char* key, bool required) -> std::string {
            if (!m.contains(key)) {
                if (required) throw Error(where + ": missing \"" + key + "\"");
                return {};
            }
            if (!m[key].is_string() || (required && m[key].get<std::string>().empty()))
                throw Error(where + ": \"" + key + "\" must be a non-empty string");
            return m[key].get<std::string>();
        };
        CatalogEntry e;
        e.repo_id = text("repo", true);
        try {
            check_repo_id(e.repo_id);
        } catch (const Error& err) {
            throw Error(where + ": " + err.what());
        }
        e.revision = m.contains("revision") ? text("revision", true) : "main";
        e.family = text("family", true);
        e.format = text("format", true);
        e.parameters = text("parameters", false);
        e.note = text("note", false);
        if (!m.contains("size_bytes") || !m["size_bytes"].is_number() || m["size_bytes"].get<double>() <= 0)
            throw Error(where + ": \"size_bytes\" must be a positive number");
        e.size_bytes = uint64_t(m["size_bytes"].get<double>());
        if (!m.contains("config") || !m["config"].is_object()) throw Error(where + ": missing the \"config\" object");
        e.config = m["config"];
        for (const char* k : {"num_hidden_layers", "num_key_value_heads", "num_attention_heads", "hidden_size",
                              "intermediate_size", "vocab_size", "max_position_embeddings"})
            if (!e.config.contains(k) || !e.config[k].is_number_integer() || e.config[k].get<int64_t>() <= 0)
                throw Error(where + ": config needs a positive integer \"" + std::string(k) + "\"");
        c.models.push_back(std::move(e));
    }
    return c;
}

ModelSummary catalog_summary(const CatalogEntry& entry) {
    ModelSummary s = summarize_config(entry.config, entry.size_bytes);
    s.family = entry.family;
    s.format = entry.format;
    return s;
}

}  // namespace folio::hub
