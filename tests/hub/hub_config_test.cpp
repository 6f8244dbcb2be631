// Where Folio looks for the Hub, its token and its cache: the same variables, in the same order, as
// huggingface_hub, so one cache and one login serve every tool.
#include <gtest/gtest.h>

#include <map>

#include "engine/hub/hub_config.h"
#include "tests/support/fixtures.h"

namespace folio::hub {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
    return [vars](const std::string& name) -> std::optional<std::string> {
        auto it = vars.find(name);
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}

TEST(HubConfig, DefaultsFollowHome) {
    const HubConfig c = hub_config_from_env(env_of({{"HOME", "/home/ada"}}));
    EXPECT_EQ(c.endpoint, "https://huggingface.co");
    EXPECT_EQ(c.cache_dir, "/home/ada/.cache/huggingface/hub");
    EXPECT_EQ(c.token, "");
    EXPECT_FALSE(c.offline);
}

TEST(HubConfig, CacheDirPrecedence) {
    EXPECT_EQ(hub_config_from_env(env_of({{"HOME", "/h"}, {"XDG_CACHE_HOME", "/xdg"}})).cache_dir, "/xdg/huggingface/hub");
    EXPECT_EQ(hub_config_from_env(env_of({{"HOME", "/h"}, {"XDG_CACHE_HOME", "/xdg"}, {"HF_HOME", "/hf"}})).cache_dir, "/hf/hub");
    EXPECT_EQ(hub_config_from_env(env_of({{"HOME", "/h"}, {"HF_HOME", "/hf"}, {"HF_HUB_CACHE", "/cache"}})).cache_dir, "/cache");
    // An empty variable counts as unset.
    EXPECT_EQ(hub_config_from_env(env_of({{"HOME", "/h"}, {"HF_HUB_CACHE", ""}})).cache_dir, "/h/.cache/huggingface/hub");
}

TEST(HubConfig, EndpointLosesTrailingSlash) {
    EXPECT_EQ(hub_config_from_env(env_of({{"HF_ENDPOINT", "https://hf-mirror.com/"}})).endpoint, "https://hf-mirror.com");
}

TEST(HubConfig, TokenFromVariableThenFile) {
    test::TempDir home;
    test::write_file(home.file("token"), "hf_from_file\n");
    EXPECT_EQ(hub_config_from_env(env_of({{"HF_HOME", home.path()}})).token, "hf_from_file");
    EXPECT_EQ(hub_config_from_env(env_of({{"HF_HOME", home.path()}, {"HF_TOKEN", " hf_env "}})).token, "hf_env");
    test::write_file(home.file("other"), "hf_other");
    EXPECT_EQ(hub_config_from_env(env_of({{"HF_HOME", home.path()}, {"HF_TOKEN_PATH", home.file("other")}})).token, "hf_other");
}

TEST(HubConfig, OfflineTruthyValues) {
    for (const char* v : {"1", "true", "TRUE", "yes", "on"}) EXPECT_TRUE(hub_config_from_env(env_of({{"HF_HUB_OFFLINE", v}})).offline) << v;
    for (const char* v : {"0", "false", "", "no"}) EXPECT_FALSE(hub_config_from_env(env_of({{"HF_HUB_OFFLINE", v}})).offline) << v;
}

}  // namespace
}  // namespace folio::hub
