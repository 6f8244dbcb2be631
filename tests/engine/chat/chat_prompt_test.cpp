// The built-in family templates against the shared vectors of their families, the chooser's rules,
// the fallback when a checkpoint's template is broken, and the tokenizer_config.json reader.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "engine/chat/builtin_templates.h"
#include "engine/chat/chat_prompt.h"
#include "engine/core/error.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

using json = nlohmann::ordered_json;

json vectors(const std::string& file) {
    return json::parse(test::read_file(test::fixture_path("chat-templates/" + file)));
}

struct Family {
    const char* builtin;
    const char* file;
};

const Family kFamilies[] = {{"llama2", "llama2-chat.json"},
                            {"mistral", "mistral-7b-instruct-v0.1.json"},
                            {"zephyr", "tinyllama-chat.json"},
                            {"chatml", "qwen2.5-instruct.json"},
                            {"llama3", "llama3-instruct.json"}};

class BuiltinTemplates : public ::testing::TestWithParam<Family> {};

TEST_P(BuiltinTemplates, AreTheRealTemplatesAndRenderTheirFamilysVectors) {
    const json file = vectors(GetParam().file);
    const BuiltinChatTemplate* builtin = find_builtin_chat_template(GetParam().builtin);
    ASSERT_NE(builtin, nullptr);
    EXPECT_EQ(std::string(builtin->source), file.at("chat_template").get<std::string>());
    ChatPromptSource source;  // no checkpoint template: the chooser's built-in is used
    if (!file.at("bos_token").is_null()) source.bos_token = file.at("bos_token").get<std::string>();
    if (!file.at("eos_token").is_null()) source.eos_token = file.at("eos_token").get<std::string>();
    source.facts.eos_token = source.eos_token.value_or("");
    const std::string name = GetParam().builtin;
    if (name == "llama2") source.facts = {"llama", 32000, "</s>", {}};
    if (name == "mistral") source.facts = {"mistral", 32000, "</s>", {}};
    if (name == "zephyr") source.facts.special_tokens = {"<|user|>", "<|assistant|>"};
    if (name == "chatml") source.facts.special_tokens = {"<|im_start|>", "<|im_end|>"};
    if (name == "llama3") source.facts.special_tokens = {"<|start_header_id|>", "<|eot_id|>"};
    for (const auto& c : file.at("cases")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        const bool gen = c.at("add_generation_prompt").get<bool>();
        if (c.contains("expected")) {
            const ChatPrompt p = render_chat_prompt(source, c.at("messages"), gen, ChatTemplateOptions{});
            EXPECT_EQ(p.template_name, name);
            EXPECT_EQ(p.text, c.at("expected").get<std::string>());
        } else {
            try {
                render_chat_prompt(source, c.at("messages"), gen, ChatTemplateOptions{});
                ADD_FAILURE() << "expected the built-in to raise";
            } catch (const TemplateRaisedError& e) {
                EXPECT_EQ(std::string(e.what()), c.at("expected_error").get<std::string>());
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Families, BuiltinTemplates, ::testing::ValuesIn(kFamilies));

TEST(BuiltinTemplates, FiveFamilies) {
    EXPECT_EQ(builtin_chat_templates().size(), 5u);
    EXPECT_EQ(find_builtin_chat_template("nope"), nullptr);
}

TEST(Chooser, RulesInOrder) {
    auto pick = [](ChatFamilyFacts f) { return choose_builtin_template(f).name; };
    EXPECT_EQ(pick({"llama", 128256, "<|eot_id|>", {}}), "llama3");
    EXPECT_EQ(pick({"llama", 128256, "<|end_of_text|>", {"<|start_header_id|>"}}), "llama3");
    EXPECT_EQ(pick({"qwen2", 151936, "<|im_end|>", {}}), "chatml");
    EXPECT_EQ(pick({"mistral", 32002, "<|im_end|>", {"<|im_start|>"}}), "chatml");  // OpenHermes-2.5-Mistral
    EXPECT_EQ(pick({"llama", 32000, "</s>", {"<|user|>", "<|assistant|>"}}), "zephyr");  // TinyLlama chat
    EXPECT_EQ(pick({"mistral", 32000, "</s>", {}}), "mistral");
    EXPECT_EQ(pick({"llama", 32768, "</s>", {"[INST]", "[/INST]"}}), "mistral");  // Mistral v0.3 vocabulary
    EXPECT_EQ(pick({"llama", 32000, "</s>", {}}), "llama2");
    const BuiltinChoice fallback = choose_builtin_template({"llama", 512, "</s>", {}});  // stories260K-like
    EXPECT_EQ(fallback.name, "llama2");
    EXPECT_FALSE(fallback.matched);
    EXPECT_NE(fallback.reason.find("no rule matched"), std::string::npos);
    EXPECT_EQ(pick({"", 0, "<|endoftext|>", {}}), "chatml");
}

json two_turns() {
    return json::parse(R"([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}])");
}

TEST(RenderChatPrompt, UsesTheCheckpointTemplateWhenItHasOne) {
    ChatPromptSource s;
    s.chat_template = "{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{{ eos_token }}";
    s.eos_token = "</s>";
    const ChatPrompt p = render_chat_prompt(s, two_turns(), true, ChatTemplateOptions{});
    EXPECT_EQ(p.text, "[user:Hi][assistant:Hello]</s>");
    EXPECT_EQ(p.template_name, "checkpoint");
    EXPECT_TRUE(p.warnings.empty());
}

TEST(RenderChatPrompt, FallsBackToTheBuiltinWhenTheTemplateIsBroken) {
    ChatPromptSource s;
    s.chat_template = "{% for m in messages %}{{ m.content }";
    s.bos_token = "<s>";
    s.eos_token = "</s>";
    s.facts = {"llama", 32000, "</s>", {}};
    const ChatPrompt p = render_chat_prompt(s, two_turns(), true, ChatTemplateOptions{});
    EXPECT_EQ(p.template_name, "llama2");
    EXPECT_EQ(p.text, "<s>[INST] Hi [/INST] Hello </s>");
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_NE(p.warnings[0].find("cannot be parsed (template syntax error at line 1, column "), std::string::npos) << p.warnings[0];
    EXPECT_NE(p.warnings[0].find("built-in 'llama2'"), std::string::npos);

    // A runtime failure other than raise_exception falls back the same way.
    s.chat_template = "{{ messages[0].content + 1 }}";
    const ChatPrompt q = render_chat_prompt(s, two_turns(), true, ChatTemplateOptions{});
    EXPECT_EQ(q.template_name, "llama2");
    ASSERT_EQ(q.warnings.size(), 1u);
    EXPECT_NE(q.warnings[0].find("failed while rendering"), std::string::npos);
}

TEST(RenderChatPrompt, ATemplateThatRaisesIsTheCallersError) {
    ChatPromptSource s;
    s.chat_template = "{{ raise_exception('Conversation roles must alternate') }}";
    EXPECT_THROW(render_chat_prompt(s, two_turns(), true, ChatTemplateOptions{}), TemplateRaisedError);
    // ... also from a built-in (Llama-2 rejects two user turns in a row)
    ChatPromptSource none;
    none.bos_token = "<s>";
    none.eos_token = "</s>";
    none.facts = {"llama", 32000, "</s>", {}};
    EXPECT_THROW(render_chat_prompt(none, json::parse(R"([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])"),
                                    true, ChatTemplateOptions{}),
                 TemplateRaisedError);
}

TEST(RenderChatPrompt, NoTemplateMeansTheBuiltinWithANote) {
    ChatPromptSource s;
    s.eos_token = "<|im_end|>";
    s.facts = {"qwen2", 151936, "<|im_end|>", {"<|im_start|>"}};
    const ChatPrompt p = render_chat_prompt(s, json::parse(R"([{"role": "user", "content": "Hi"}])"), true, ChatTemplateOptions{});
    EXPECT_EQ(p.template_name, "chatml");
    EXPECT_EQ(p.text,
              "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
              "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_NE(p.warnings[0].find("no chat_template"), std::string::npos);
    EXPECT_THROW(render_chat_prompt(s, json::object(), true, ChatTemplateOptions{}), Error);  // not an array
}

TEST(RenderChatPrompt, FromModelAndTokenizerConfigs) {
    ModelConfig config;
    config.model_type = "llama";
    config.vocab_size = 32000;
    TokenizerConfig tc;  // <s> / </s>, no chat_template
    const std::vector<ChatMessage> messages = {{"system", "Be brief."}, {"user", "Hi"}};
    const ChatPrompt p = render_chat_prompt(config, tc, messages);
    EXPECT_EQ(p.template_name, "llama2");
    EXPECT_EQ(p.text, "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST]");

    tc.chat_template = "{{ bos_token }}{% for m in messages %}{{ m.role[0] }}{{ m.content }}{% endfor %}"
                       "{% if add_generation_prompt %}>{% endif %}";
    const ChatPrompt q = render_chat_prompt(config, tc, messages, false);
    EXPECT_EQ(q.template_name, "checkpoint");
    EXPECT_EQ(q.text, "<s>sBe brief.uHi");
}

// A vocabulary with the ChatML tokens, for the chooser's tokenizer rule.
class ChatMlVocabulary : public Tokenizer {
public:
    std::vector<int> encode(std::string_view) const override { return {}; }
    std::vector<int> encode_without_dummy_prefix(std::string_view) const override { return {}; }
    std::string decode(const std::vector<int>&) const override { return {}; }
    std::string token_bytes(int) const override { return {}; }
    TokenKind token_kind(int) const override { return TokenKind::Text; }
    LeadingSpaceRule leading_space_rule() const override { return LeadingSpaceRule::Keep; }
    std::string piece(int) const override { return {}; }
    int piece_to_id(std::string_view p) const override { return p == "<|im_start|>" ? 7 : p == "<|im_end|>" ? 8 : -1; }
    int vocab_size() const override { return 10; }
    bool is_control(int) const override { return false; }
    int bos_id() const override { return -1; }
    int eos_id() const override { return 8; }
    int unk_id() const override { return -1; }
    std::vector<int> special_token_ids() const override { return {7, 8}; }
    std::string kind() const override { return "test"; }
};

TEST(RenderChatPrompt, TheTokenizersVocabularyInformsTheChoice) {
    ModelConfig config;
    config.model_type = "mistral";
    TokenizerConfig tc;
    tc.bos_token = "";  // none: not passed to the template
    tc.eos_token = "<|im_end|>";
    const ChatMlVocabulary vocab;
    const ChatPrompt p = render_chat_prompt(config, tc, &vocab, {{"system", "S"}, {"user", "U"}});
    EXPECT_EQ(p.template_name, "chatml");
    EXPECT_EQ(p.text, "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n");
    // Without the vocabulary only the eos token tells: </s> and model_type mistral mean Mistral.
    tc.eos_token = "</s>";
    EXPECT_EQ(render_chat_prompt(config, tc, nullptr, {{"user", "U"}}).template_name, "mistral");
    EXPECT_EQ(render_chat_prompt(config, tc, &vocab, {{"user", "U"}}).template_name, "chatml");
}

// A message's reasoning reaches the template only when it has some (a template may test `is defined`).
TEST(RenderChatPrompt, MessagesCarryTheirReasoningWhenTheyHaveSome) {
    const json list = chat_messages_json({{"user", "Hi"}, {"assistant", "Hello", "They greeted me."}, {"assistant", "Bye", ""}});
    EXPECT_EQ(list.dump(), R"([{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello","reasoning_content":)"
                           R"("They greeted me."},{"role":"assistant","content":"Bye"}])");
}

// Extra template variables: rendered as the vectors say (chat-templates/qwen3.json renders them with
// Jinja2), and the renderer's own variables cannot be overridden.
TEST(RenderChatPrompt, TemplateKwargsAsJinja2RendersThem) {
    const json file = vectors("qwen3.json");
    ChatPromptSource source;
    source.chat_template = file.at("chat_template").get<std::string>();
    source.eos_token = file.at("eos_token").get<std::string>();
    int checked = 0;
    for (const auto& c : file.at("cases")) {
        if (!c.contains("kwargs")) continue;
        SCOPED_TRACE(c.at("name").get<std::string>());
        const ChatPrompt p = render_chat_prompt(source, c.at("messages"), c.at("add_generation_prompt").get<bool>(),
                                                ChatTemplateOptions{}, c.at("kwargs"));
        EXPECT_EQ(p.text, c.at("expected").get<std::string>());
        ++checked;
    }
    EXPECT_EQ(checked, 6);
    for (const char* own : {"messages", "add_generation_prompt", "tools", "bos_token", "eos_token"}) {
        try {
            render_chat_prompt(source, json::array(), true, ChatTemplateOptions{}, json{{own, nullptr}});
            ADD_FAILURE() << own << " was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("'") + own + "'"), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(render_chat_prompt(source, json::array(), true, ChatTemplateOptions{}, json("enable_thinking")), Error);
}

TEST(ChatPromptSource, FromAFolder) {
    test::TempDir dir;
    EXPECT_THROW(chat_prompt_source_from_folder(dir.path()), Error);  // no tokenizer_config.json
    EXPECT_THROW(chat_prompt_source_from_folder(dir.file("nope")), Error);
    test::write_file(dir.file("tokenizer_config.json"),
                     R"({"chat_template": "T", "bos_token": null, "eos_token": {"content": "<|im_end|>", "lstrip": false},
                         "added_tokens_decoder": {"151644": {"content": "<|im_start|>", "special": true}}})");
    test::write_file(dir.file("config.json"), R"({"model_type": "qwen2", "vocab_size": 151936, "hidden_size": 8})");
    const ChatPromptSource s = chat_prompt_source_from_folder(dir.path());
    EXPECT_EQ(s.chat_template, "T");
    EXPECT_FALSE(s.bos_token.has_value());  // null: not passed to the template
    EXPECT_EQ(s.eos_token, "<|im_end|>");
    EXPECT_EQ(s.facts.model_type, "qwen2");
    EXPECT_EQ(s.facts.vocab_size, 151936);
    EXPECT_NE(std::find(s.facts.special_tokens.begin(), s.facts.special_tokens.end(), "<|im_start|>"), s.facts.special_tokens.end());
    EXPECT_EQ(choose_builtin_template(s.facts).name, "chatml");

    test::write_file(dir.file("config.json"), "{not json");
    EXPECT_THROW(chat_prompt_source_from_folder(dir.path()), Error);
}

}  // namespace
}  // namespace folio
