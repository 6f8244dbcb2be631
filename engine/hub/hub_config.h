#pragma once
// Where the Hub is, who we are to it and where its files go, as huggingface_hub reads them from the
// environment, so that Folio shares one cache (and one login) with huggingface-cli, vLLM and llama.cpp.
#include <functional>
#include <optional>
#include <string>

namespace folio::hub {

struct HubConfig {
    std::string endpoint = "https://huggingface.co";  // HF_ENDPOINT (a mirror), no trailing slash
    std::string token;      // HF_TOKEN, else the token file huggingface-cli login writes; empty: anonymous
    std::string cache_dir;  // HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub
    bool offline = false;   // HF_HUB_OFFLINE=1: never touch the network, serve from the cache only
};

// An environment lookup (getenv in production, a map in tests); nullopt when the variable is unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_environment();

// Reads HF_ENDPOINT, HF_TOKEN (else HF_TOKEN_PATH, else $HF_HOME/token), HF_HUB_CACHE / HF_HOME /
// XDG_CACHE_HOME / HOME and HF_HUB_OFFLINE the way huggingface_hub does. Never throws: a missing
// HOME leaves the cache in the working directory's .cache/huggingface/hub.
HubConfig hub_config_from_env(const EnvLookup& env);
inline HubConfig hub_config_from_env() { return hub_config_from_env(process_environment()); }

// "1", "true", "yes", "on" (any case) — huggingface_hub's truthy values.
bool env_truthy(const std::string& value);

}  // namespace folio::hub
