#include "engine/hub/hub_config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace folio::hub {

EnvLookup process_environment() {
    return [](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        if (!v) return std::nullopt;
        return std::string(v);
    };
}

bool env_truthy(const std::string& value) {
    std::string v;
    for (char c : value) v += char(std::tolower(static_cast<unsigned char>(c)));
    return v == "1" || v == "true" || v == "yes" || v == "on";
}

namespace {

std::string trim(std::string s) {
    auto not_space = [](unsigned char c) { return !std::isspace(c); };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
    s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
    return s;
}

std::optional<std::string> non_empty(const EnvLookup& env, const std::string& name) {
    auto v = env(name);
    if (!v || trim(*v).empty()) return std::nullopt;
    return v;
}

std::string read_token_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) return {};
    std::stringstream ss;
    ss << in.rdbuf();
    return trim(ss.str());
}

}  // namespace

HubConfig hub_config_from_env(const EnvLookup& env) {
    HubConfig c;
    if (auto e = non_empty(env, "HF_ENDPOINT")) {
        c.endpoint = trim(*e);
        while (!c.endpoint.empty() && c.endpoint.back() == '/') c.endpoint.pop_back();
    }

    // $HF_HOME defaults to $XDG_CACHE_HOME/huggingface, and that to ~/.cache/huggingface.
    std::string hf_home;
    if (auto h = non_empty(env, "HF_HOME")) {
        hf_home = *h;
    } else {
        std::string xdg_cache;
        if (auto x = non_empty(env, "XDG_CACHE_HOME")) xdg_cache = *x;
        else if (auto home = non_empty(env, "HOME")) xdg_cache = *home + "/.cache";
        else xdg_cache = ".cache";
        hf_home = xdg_cache + "/huggingface";
    }
    if (auto cache = non_empty(env, "HF_HUB_CACHE")) c.cache_dir = *cache;
    else if (auto legacy = non_empty(env, "HUGGINGFACE_HUB_CACHE")) c.cache_dir = *legacy;
    else c.cache_dir = hf_home + "/hub";

    if (auto t = non_empty(env, "HF_TOKEN")) {
        c.token = trim(*t);
    } else if (auto t2 = non_empty(env, "HUGGING_FACE_HUB_TOKEN")) {
        c.token = trim(*t2);
    } else {
        const auto path = non_empty(env, "HF_TOKEN_PATH");
        c.token = read_token_file(path ? *path : hf_home + "/token");
    }
    if (auto off = env("HF_HUB_OFFLINE")) c.offline = env_truthy(*off);
    return c;
}

}  // namespace folio::hub
