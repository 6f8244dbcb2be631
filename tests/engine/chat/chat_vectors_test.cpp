// Every case of every shared chat-template vector file, byte for byte, including the cases where the
// template must raise (message equality).
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/chat/chat_template.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

using json = nlohmann::ordered_json;

const char* kFiles[] = {"llama2-chat.json", "mistral-7b-instruct-v0.1.json", "tinyllama-chat.json",
                        "qwen2.5-instruct.json", "llama3-instruct.json", "llama3.2-instruct.json",
                        "mistral-nemo-instruct-2407.json", "deepseek-r1-distill.json", "command-r.json",
                        "command-r-tool-use.json", "qwen3.json"};

json load(const std::string& name) {
    return json::parse(test::read_file(test::fixture_path("chat-templates/" + name)));
}

// The variables transformers passes (README of the vectors): a null token is not passed at all; a
// case's kwargs (enable_thinking, tools) come last.
json context_for(const json& file, const json& c) {
    json ctx = json::object();
    ctx["messages"] = c.at("messages");
    ctx["add_generation_prompt"] = c.at("add_generation_prompt");
    ctx["tools"] = nullptr;
    if (!file.at("bos_token").is_null()) ctx["bos_token"] = file.at("bos_token");
    if (!file.at("eos_token").is_null()) ctx["eos_token"] = file.at("eos_token");
    if (c.contains("kwargs"))
        for (const auto& [k, v] : c.at("kwargs").items()) ctx[k] = v;
    return ctx;
}

class SharedVectors : public ::testing::TestWithParam<const char*> {};

TEST_P(SharedVectors, EveryCaseByteForByte) {
    const json file = load(GetParam());
    const ChatTemplate t = ChatTemplate::parse(file.at("chat_template").get<std::string>());
    ASSERT_FALSE(file.at("cases").empty());
    int checked = 0;
    for (const auto& c : file.at("cases")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        const json ctx = context_for(file, c);
        if (c.contains("expected")) {
            EXPECT_EQ(t.render(ctx), c.at("expected").get<std::string>());
        } else {
            ASSERT_TRUE(c.contains("expected_error"));
            try {
                t.render(ctx);
                ADD_FAILURE() << "expected the template to raise";
            } catch (const TemplateRaisedError& e) {
                EXPECT_EQ(std::string(e.what()), c.at("expected_error").get<std::string>());
            }
        }
        ++checked;
    }
    EXPECT_EQ(checked, int(file.at("cases").size()));
}

INSTANTIATE_TEST_SUITE_P(ChatTemplates, SharedVectors, ::testing::ValuesIn(kFiles));

// Every file's cases, none lost: 14 standard cases per template (tool use: 6 cases with tools), plus
// the reasoning (6) and thinking-switch (6) cases of DeepSeek-R1 and Qwen3.
TEST(SharedVectors, FilesHoldEveryCase) {
    size_t total = 0;
    for (const char* f : kFiles) total += load(f).at("cases").size();
    EXPECT_EQ(total, 10 * 14u + 6u + 2 * 6u + 6u);
}

}  // namespace
}  // namespace folio
