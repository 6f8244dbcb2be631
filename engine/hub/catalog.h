#pragma once
// The short list of recommended chat models shown first on the Download page, kept as data
// (resources/catalog/recommended.json) so it can change without code.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/hub/model_summary.h"

namespace folio::hub {

struct CatalogEntry {
    std::string repo_id;
    std::string revision = "main";
    std::string family;       // "Llama 3.1"
    std::string format;       // "AWQ 4-bit", "FP8", "bf16"
    std::string parameters;   // "8B"
    uint64_t size_bytes = 0;  // the download, rounded
    std::string note;         // one line for people
    nlohmann::json config;    // the config.json fields the memory estimate needs
};

struct Catalog {
    std::string title;        // "Chat models for a 24 GB graphics card"
    std::vector<CatalogEntry> models;
};

// Throws folio::Error naming `source`, the entry and the field when something is missing or wrong.
Catalog parse_catalog(const std::string& json_text, const std::string& source);

// A summary for the memory estimate before anything is downloaded.
ModelSummary catalog_summary(const CatalogEntry& entry);

}  // namespace folio::hub
