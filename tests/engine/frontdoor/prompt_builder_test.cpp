// Prompts from chat messages: continuing the final assistant message as transformers'
// continue_final_message does (the template's text cut right after that message, no end of turn),
// with the llama2 and chatml built-in templates, through the engine too; and the chat-template
// fallback warning logged once per engine (one model load), not once per request; an empty raw
// prompt.
#include <gtest/gtest.h>

#include <memory>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sstream>

#include "engine/chat/builtin_templates.h"
#include "engine/chat/chat_prompt.h"
#include "engine/core/error.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/frontdoor/prompt_builder.h"
#include "engine/frontdoor/sync_engine.h"
#include "engine/model/model.h"
#include "engine/tokenizer/prompt_encoding.h"
#include "engine/tokenizer/tokenizer_config.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

std::shared_ptr<const Model> stories() {
    static std::shared_ptr<const Model> m = load_model(test::fixture_path("models/stories260K"));
    return m;
}

// stories260K's tokenizer and config with a checkpoint template of our choosing (no weights needed
// to build prompts).
std::shared_ptr<const Model> with_template(const std::string& builtin_name) {
    auto m = std::make_shared<Model>();
    m->name = "stories260K+" + builtin_name;
    m->config = stories()->config;
    m->tokenizer = stories()->tokenizer;
    m->tokenizer_config = stories()->tokenizer_config;
    m->tokenizer_config.chat_template = std::string(find_builtin_chat_template(builtin_name)->source);
    return m;
}

// The Qwen3 template (tiny-qwen3's tokenizer_config.json, the real Qwen3 one) on stories260K's tokenizer.
std::shared_ptr<const Model> with_qwen3_template() {
    auto m = std::make_shared<Model>(*with_template("chatml"));
    m->tokenizer_config.chat_template =
        load_tokenizer_config(test::fixture_path("models/tiny-qwen3")).chat_template;
    return m;
}

Request continuing(const std::string& partial) {
    Request r;
    r.messages = {{"system", "You tell stories."}, {"user", "Tell me a story"}, {"assistant", partial}};
    r.continue_final_message = true;
    return r;
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Everything the default logger writes while the guard lives.
class LogCapture {
public:
    LogCapture() : previous_(spdlog::default_logger()) {
        auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(text_);
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
    }
    ~LogCapture() { spdlog::set_default_logger(previous_); }
    int count(const std::string& needle) const {
        const std::string s = text_.str();
        int n = 0;
        for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
        return n;
    }

private:
    std::ostringstream text_;
    std::shared_ptr<spdlog::logger> previous_;
};

TEST(ContinueFinalMessage, CutsRightAfterTheContentAsTransformersDoes) {
    const std::string llama = "<s>[INST] Hi [/INST] Once upon a time </s>";
    EXPECT_EQ(cut_after_final_message(llama, "Once upon a time", " </s>"), "<s>[INST] Hi [/INST] Once upon a time");
    // The content's own surrounding whitespace: stripped when looking, trailing kept when the template kept it.
    EXPECT_EQ(cut_after_final_message(llama, "  Once upon a time ", " </s>"), "<s>[INST] Hi [/INST] Once upon a time ");
    EXPECT_EQ(cut_after_final_message("<|im_start|>assistant\nOnce\n\n<|im_end|>\n", "Once\n\n", "<|im_end|>\n"),
              "<|im_start|>assistant\nOnce\n\n");
    EXPECT_EQ(cut_after_final_message("A: x<END>", "x\n", "<END>"), "A: x");  // the template dropped the newline
    // The last occurrence counts (the user said the same words earlier).
    EXPECT_EQ(cut_after_final_message("U: yes A: yes</s>", "yes", "</s>"), "U: yes A: yes");
}

TEST(ContinueFinalMessage, AShortReplyIsNotFoundInsideTheEndOfTurn) {
    // transformers' plain rindex would cut inside "</s>" here.
    EXPECT_EQ(cut_after_final_message("[INST] Hi [/INST] s </s>", "s", " </s>"), "[INST] Hi [/INST] s");
    EXPECT_EQ(cut_after_final_message("[INST] Hi [/INST] s </s>", "s", ""), "[INST] Hi [/INST] s </s");
}

TEST(ContinueFinalMessage, ContentTheTemplateDroppedOrBlankIsAClearError) {
    try {
        cut_after_final_message("[INST] Hi [/INST] </s>", "Hello", " </s>");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not appear in the prompt"), std::string::npos) << e.what();
    }
    EXPECT_THROW(cut_after_final_message("[INST] Hi [/INST] </s>", " \n ", " </s>"), Error);
}

TEST(ContinueFinalMessage, Llama2BuiltinEndsExactlyWithThePartialReply) {
    const auto model = stories();  // no chat_template: the built-in llama2 template
    const ChatPrompt p = render_request_chat(*model, continuing("Once upon a time, there was"));
    EXPECT_EQ(p.template_name, "llama2");
    EXPECT_TRUE(ends_with(p.text, "[/INST] Once upon a time, there was")) << p.text;
    EXPECT_EQ(p.text.find("</s>"), std::string::npos) << p.text;
    EXPECT_NE(p.text.find("<<SYS>>\nYou tell stories.\n<</SYS>>"), std::string::npos) << p.text;
    // The same conversation rendered whole, without the cut, goes on with the end of turn.
    Request whole = continuing("Once upon a time, there was");
    whole.continue_final_message = false;
    const ChatPrompt full = render_chat_prompt(model->config, model->tokenizer_config, model->tokenizer.get(), whole.messages, false);
    EXPECT_EQ(full.text, p.text + " </s>");
}

TEST(ContinueFinalMessage, ChatmlEndsExactlyWithThePartialReplyWhitespaceIncluded) {
    const auto model = with_template("chatml");
    const ChatPrompt p = render_request_chat(*model, continuing("Once upon a time,\n"));
    EXPECT_EQ(p.template_name, "checkpoint");
    EXPECT_TRUE(ends_with(p.text, "<|im_start|>assistant\nOnce upon a time,\n")) << p.text;
    EXPECT_EQ(p.text.find("<|im_end|>", p.text.rfind("<|im_start|>assistant")), std::string::npos) << p.text;
    EXPECT_NE(p.text.find("<|im_start|>system\nYou tell stories.<|im_end|>"), std::string::npos) << p.text;
}

TEST(ContinueFinalMessage, IdsAreTheCutTextEncodedWithoutAnEndOfTurn) {
    const auto model = stories();
    const Request r = continuing("Once upon a time");
    const std::vector<int32_t> ids = build_prompt_ids(*model, r);
    EXPECT_EQ(ids, encode_rendered_chat(*model->tokenizer, model->tokenizer_config, render_request_chat(*model, r).text));
    EXPECT_NE(ids.back(), eos_token_id(*model->tokenizer, model->tokenizer_config));
    // A normal request for the same history (the partial reply dropped) ends in the generation prompt instead.
    Request fresh = r;
    fresh.messages.pop_back();
    fresh.continue_final_message = false;
    const std::vector<int32_t> fresh_ids = build_prompt_ids(*model, fresh);
    ASSERT_LT(fresh_ids.size(), ids.size());
    EXPECT_TRUE(std::equal(fresh_ids.begin(), fresh_ids.end(), ids.begin()));
}

TEST(ContinueFinalMessage, RequestsThatCannotBeContinuedSayWhy) {
    const auto model = stories();
    auto message_of = [&](const Request& r) {
        try {
            build_prompt_ids(*model, r);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    Request user_last;
    user_last.messages = {{"user", "Hi"}};
    user_last.continue_final_message = true;
    EXPECT_NE(message_of(user_last).find("ends with a \"user\" message"), std::string::npos) << message_of(user_last);
    EXPECT_NE(message_of(continuing("  ")).find("nothing to continue"), std::string::npos) << message_of(continuing("  "));
    Request text;
    text.prompt_text = "Once";
    text.continue_final_message = true;
    EXPECT_NE(message_of(text).find("chat messages only"), std::string::npos) << message_of(text);
}

// Raw text may be empty: the prompt is BOS alone (transformers and llama.cpp generate from it), and
// a tokenizer that adds no BOS leaves nothing to start from, which is said.
TEST(RawPrompt, AnEmptyTextIsBosAlone) {
    Request r;
    r.prompt_text = "";
    EXPECT_EQ(build_prompt_ids(*stories(), r), std::vector<int32_t>{1});
    auto no_bos = std::make_shared<Model>(*with_template("chatml"));
    no_bos->tokenizer_config.add_bos_token = false;
    try {
        build_prompt_ids(*no_bos, r);
        ADD_FAILURE() << "an empty prompt without BOS was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("adds no BOS token"), std::string::npos) << e.what();
    }
    Request none;  // no prompt of any kind is still refused
    EXPECT_THROW(build_prompt_ids(*stories(), none), Error);
}

EngineOptions small_pool() {
    EngineOptions o;
    o.num_kv_blocks = 64;
    return o;
}

std::unique_ptr<SyncEngine> make_core() {
    BackendOptions b;
    b.num_threads = 1;
    return std::make_unique<SyncEngine>(stories(), make_cpu_backend(*stories(), b), small_pool());
}

std::vector<Event> drain(SyncEngine& core) {
    std::vector<Event> out;
    while (core.has_unfinished() || core.has_pending_events())
        for (Event& e : core.step()) out.push_back(std::move(e));
    return out;
}

TEST(ContinueFinalMessage, TheEngineGoesOnFromTheCutPrompt) {
    auto core = make_core();
    Request r = continuing("Once upon a time, there was a little");
    r.sampling.temperature = 0;
    r.stop.max_tokens = 6;
    const RequestId id = core->add(r);
    Request bad = continuing("");
    const RequestId bad_id = core->add(bad);
    int tokens = 0;
    const Event* end = nullptr;
    const Event* bad_end = nullptr;
    const std::vector<Event> events = drain(*core);
    for (const Event& e : events) {
        if (e.id == id && e.kind == Event::Kind::Token) ++tokens;
        if (e.id == id && e.kind != Event::Kind::Token) end = &e;
        if (e.id == bad_id) bad_end = &e;
    }
    ASSERT_NE(end, nullptr);
    ASSERT_EQ(end->kind, Event::Kind::Finished) << end->message;
    EXPECT_EQ(end->prompt_ids, build_prompt_ids(*stories(), r));
    EXPECT_EQ(tokens, 6);
    ASSERT_NE(bad_end, nullptr);
    EXPECT_EQ(bad_end->kind, Event::Kind::Error);
    EXPECT_NE(bad_end->message.find("nothing to continue"), std::string::npos) << bad_end->message;
}

// The request's chat_template_kwargs reach the template: Qwen3's enable_thinking=false closes an
// empty think block after the generation prompt (as Jinja2 renders it: chat-templates/qwen3.json).
TEST(ChatTemplateKwargs, ReachTheTemplate) {
    const auto model = with_qwen3_template();
    Request r;
    r.messages = {{"user", "Hello, how are you?"}};
    const std::string thinking = render_request_chat(*model, r).text;
    EXPECT_EQ(thinking, "<|im_start|>user\nHello, how are you?<|im_end|>\n<|im_start|>assistant\n");
    r.chat_template_kwargs["enable_thinking"] = false;
    EXPECT_EQ(render_request_chat(*model, r).text, thinking + "<think>\n\n</think>\n\n");
    r.chat_template_kwargs["enable_thinking"] = true;
    EXPECT_EQ(render_request_chat(*model, r).text, thinking);
    r.chat_template_kwargs = {{"add_generation_prompt", false}};
    try {
        render_request_chat(*model, r);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'add_generation_prompt'"), std::string::npos) << e.what();
    }
    r.chat_template_kwargs = nlohmann::ordered_json::array({true});
    EXPECT_THROW(render_request_chat(*model, r), Error);
}

// A reply's reasoning goes to the template as reasoning_content: Qwen3's drops it from turns before
// the last user message, and keeps it in the reply being continued.
TEST(ChatTemplateKwargs, ReasoningContentIsTheTemplatesToKeepOrDrop) {
    const auto model = with_qwen3_template();
    Request r;
    r.messages = {{"user", "What is 2 + 2?"}, {"assistant", "2 + 2 = 4.", "Two and two make four."}, {"user", "And 3 + 3?"}};
    const std::string history = render_request_chat(*model, r).text;
    EXPECT_EQ(history.find("Two and two"), std::string::npos) << history;
    EXPECT_NE(history.find("<|im_start|>assistant\n2 + 2 = 4.<|im_end|>"), std::string::npos) << history;
    r.messages.pop_back();
    r.messages.back().content = "2 + 2 =";
    r.continue_final_message = true;
    EXPECT_TRUE(ends_with(render_request_chat(*model, r).text,
                          "<|im_start|>assistant\n<think>\nTwo and two make four.\n</think>\n\n2 + 2 ="));
}

TEST(PromptBuilder, TheTemplateFallbackIsLoggedOncePerEngineNotPerRequest) {
    const std::string warning = "the checkpoint has no chat_template; using the built-in 'llama2' template";
    LogCapture log;
    auto core = make_core();
    for (int i = 0; i < 3; ++i) {
        Request r;
        r.messages = {{"user", "Story " + std::to_string(i)}};
        r.stop.max_tokens = 1;
        core->add(r);
    }
    drain(*core);
    EXPECT_EQ(log.count(warning), 1);
    // A new engine (the next model load) says it again, once.
    auto again = make_core();
    Request r;
    r.messages = {{"user", "Hi"}};
    r.stop.max_tokens = 1;
    again->add(r);
    again->add(r);
    drain(*again);
    EXPECT_EQ(log.count(warning), 2);
}

TEST(PromptBuilder, KeepsTheDistinctWarningsItLogged) {
    LogCapture log;
    PromptBuilder builder(*stories());
    Request r;
    r.messages = {{"user", "Hi"}};
    builder.build(r);
    builder.build(r);
    ASSERT_EQ(builder.warnings().size(), 1u);
    EXPECT_NE(builder.warnings()[0].find("no chat_template"), std::string::npos);
    // build_prompt_ids itself logs nothing and hands the warnings back.
    std::vector<std::string> warnings;
    build_prompt_ids(*stories(), r, &warnings);
    EXPECT_EQ(warnings, builder.warnings());
    EXPECT_EQ(log.count("chat template:"), 1);
}

}  // namespace
}  // namespace folio
