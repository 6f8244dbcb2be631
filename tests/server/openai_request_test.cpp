// The OpenAI request parser on its own: what each field becomes in the engine's Request, and that
// each malformed or unsupported field is refused with a 400 naming it.
#include <gtest/gtest.h>

#include "app/server/openai_request.h"
#include "app/server/openai_response.h"

namespace folio::server {
namespace {

ApiRequest chat(const std::string& body, const GenerationDefaults& d = {}) { return parse_api_request(body, Endpoint::ChatCompletions, d); }
ApiRequest completion(const std::string& body) { return parse_api_request(body, Endpoint::Completions, {}); }

// The field an ApiError names, or "<no error>".
std::string refused_param(const std::string& body, Endpoint e = Endpoint::ChatCompletions) {
    try {
        parse_api_request(body, e, {});
    } catch (const ApiError& err) {
        EXPECT_EQ(err.status, 400) << err.what();
        EXPECT_FALSE(std::string(err.what()).empty());
        return err.param.empty() ? "<body>" : err.param;
    }
    return "<no error>";
}

TEST(OpenAiRequest, ChatFieldsBecomeTheEngineRequest) {
    const ApiRequest r = chat(R"({"model":"m","messages":[{"role":"developer","content":"be brief"},
        {"role":"user","content":[{"type":"text","text":"Hello, "},{"type":"text","text":"world"}]}],
        "max_tokens":10,"max_completion_tokens":7,"temperature":0.5,"top_p":0.9,"top_k":40,"min_p":0.05,
        "presence_penalty":0.5,"frequency_penalty":-0.5,"repetition_penalty":1.1,"seed":-1,"stop":["\n\n","END"],
        "stream":true,"stream_options":{"include_usage":true},"n":1,"logprobs":false,"user":"u","unknown_extra":{}})");
    EXPECT_EQ(r.model, "m");
    ASSERT_EQ(r.request.messages.size(), 2u);
    EXPECT_EQ(r.request.messages[0].role, "system");
    EXPECT_EQ(r.request.messages[1].content, "Hello, world");
    EXPECT_EQ(r.max_tokens, 7);  // max_completion_tokens wins
    EXPECT_FLOAT_EQ(r.request.sampling.temperature, 0.5f);
    EXPECT_FLOAT_EQ(r.request.sampling.top_p, 0.9f);
    EXPECT_EQ(r.request.sampling.top_k, 40);
    EXPECT_FLOAT_EQ(r.request.sampling.min_p, 0.05f);
    EXPECT_FLOAT_EQ(r.request.sampling.presence_penalty, 0.5f);
    EXPECT_FLOAT_EQ(r.request.sampling.frequency_penalty, -0.5f);
    EXPECT_FLOAT_EQ(r.request.sampling.repetition_penalty, 1.1f);
    EXPECT_EQ(r.request.sampling.seed, uint64_t(-1));
    EXPECT_EQ(r.request.stop.stop_strings, (std::vector<std::string>{"\n\n", "END"}));
    EXPECT_TRUE(r.stream);
    EXPECT_TRUE(r.include_usage);
    EXPECT_EQ(r.n, 1);
    EXPECT_EQ(chat(R"({"messages":[{"role":"user","content":"x"}],"n":4})").n, 4);
}

TEST(OpenAiRequest, DefaultsComeFromTheCheckpointThenOpenAi) {
    const ApiRequest plain = chat(R"({"messages":[{"role":"user","content":"x"}]})");
    EXPECT_FLOAT_EQ(plain.request.sampling.temperature, 1.0f);
    EXPECT_FALSE(plain.max_tokens.has_value());
    EXPECT_FALSE(plain.stream);
    GenerationDefaults g;
    g.temperature = 0.6f;
    g.top_p = 0.95f;
    const ApiRequest r = chat(R"({"messages":[{"role":"user","content":"x"}],"top_p":null})", g);
    EXPECT_FLOAT_EQ(r.request.sampling.temperature, 0.6f);
    EXPECT_FLOAT_EQ(r.request.sampling.top_p, 0.95f);  // null: not given
}

TEST(OpenAiRequest, CompletionPromptAsTextOrIds) {
    EXPECT_EQ(completion(R"({"prompt":"Once"})").request.prompt_text, "Once");
    EXPECT_EQ(completion(R"({"prompt":["Once"]})").request.prompt_text, "Once");
    EXPECT_EQ(completion(R"({"prompt":[1,2,3]})").request.prompt_ids, (std::vector<int32_t>{1, 2, 3}));
    EXPECT_EQ(completion(R"({"prompt":[[4,5]]})").request.prompt_ids, (std::vector<int32_t>{4, 5}));
    EXPECT_EQ(completion(R"({"prompt":"x","stop":"END","top_k":-1})").request.stop.stop_strings, (std::vector<std::string>{"END"}));
}

TEST(OpenAiRequest, LogprobsBecomeTheNumberOfAlternatives) {
    const std::string msgs = R"("messages":[{"role":"user","content":"y"}])";
    EXPECT_EQ(chat("{" + msgs + "}").request.sampling.logprobs, -1);
    EXPECT_EQ(chat("{" + msgs + R"(,"logprobs":false})").request.sampling.logprobs, -1);
    EXPECT_EQ(chat("{" + msgs + R"(,"logprobs":true})").request.sampling.logprobs, 0);
    EXPECT_EQ(chat("{" + msgs + R"(,"logprobs":true,"top_logprobs":20})").request.sampling.logprobs, 20);
    EXPECT_EQ(chat("{" + msgs + R"(,"logprobs":null,"top_logprobs":null})").request.sampling.logprobs, -1);
    EXPECT_EQ(completion(R"({"prompt":"a"})").request.sampling.logprobs, -1);
    EXPECT_EQ(completion(R"({"prompt":"a","logprobs":0})").request.sampling.logprobs, 0);
    EXPECT_EQ(completion(R"({"prompt":"a","logprobs":5})").request.sampling.logprobs, 5);
}

TEST(OpenAiRequest, EachBadFieldIsNamed) {
    EXPECT_EQ(refused_param("{"), "<body>");
    EXPECT_EQ(refused_param("[]"), "<body>");
    EXPECT_EQ(refused_param(R"({"messages":[]})"), "messages");
    EXPECT_EQ(refused_param(R"({"messages":[{"role":"user"}]})"), "messages[0].content");
    EXPECT_EQ(refused_param(R"({"messages":[{"role":"x","content":"y"}]})"), "messages[0].role");
    EXPECT_EQ(refused_param(R"({"messages":[{"role":"user","content":[{"type":"text"}]}]})"), "messages[0].content[0].text");
    EXPECT_EQ(refused_param(R"({"model":5,"messages":[{"role":"user","content":"y"}]})"), "model");
    const std::string ok = R"("messages":[{"role":"user","content":"y"}])";
    for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
             {"max_tokens", "0"}, {"max_tokens", "1e30"}, {"max_tokens", "\"5\""}, {"max_completion_tokens", "-3"},
             {"temperature", "-0.1"}, {"temperature", "true"}, {"top_p", "1.5"}, {"top_k", "-2"}, {"min_p", "2"},
             {"presence_penalty", "3"}, {"frequency_penalty", "-3"}, {"repetition_penalty", "0"}, {"seed", "1.5"},
             {"seed", "18446744073709551616"}, {"stop", "5"}, {"stop", "[\"\"]"}, {"stream", "\"yes\""}, {"n", "0"}, {"n", "17"},
             {"logprobs", "1"}, {"top_logprobs", "2"}, {"top_logprobs", "-1"}, {"tools", "[{}]"}, {"logit_bias", "{\"1\":5}"},
             {"response_format", "{\"type\":\"json_object\"}"}, {"user", "1"}})
        EXPECT_EQ(refused_param("{" + ok + ",\"" + field + "\":" + value + "}"), field) << field << "=" << value;
    EXPECT_EQ(refused_param(R"({"prompt":""})", Endpoint::Completions), "prompt");
    EXPECT_EQ(refused_param(R"({"prompt":[1,-1]})", Endpoint::Completions), "prompt");
    EXPECT_EQ(refused_param(R"({"prompt":["a","b"]})", Endpoint::Completions), "prompt");
    EXPECT_EQ(refused_param(R"({"prompt":"a","logprobs":21})", Endpoint::Completions), "logprobs");
    EXPECT_EQ(refused_param(R"({"prompt":"a","logprobs":true})", Endpoint::Completions), "logprobs");
    EXPECT_EQ(refused_param(R"({"prompt":"a","logprobs":2,"top_logprobs":2})", Endpoint::Completions), "top_logprobs");
    EXPECT_EQ(refused_param(R"({"messages":[{"role":"user","content":"y"}],"logprobs":true,"top_logprobs":21})"), "top_logprobs");
    EXPECT_EQ(refused_param(R"({"messages":[{"role":"user","content":"y"}],"logprobs":false,"top_logprobs":0})"), "top_logprobs");
    EXPECT_EQ(refused_param(R"({"prompt":"a","echo":true})", Endpoint::Completions), "echo");
    EXPECT_EQ(refused_param(R"({"messages":[{"role":"user","content":"y"}]})", Endpoint::Completions), "messages");
}

TEST(OpenAiResponse, ShapesFollowOpenAi) {
    const ResponseHeader h{Endpoint::ChatCompletions, "chatcmpl-1", 7, "m"};
    const auto full = full_response(h, {{"hi", FinishReason::StopString, nullptr}, {"ho", FinishReason::Length, nullptr}}, {3, 2, 1});
    EXPECT_EQ(full["object"], "chat.completion");
    EXPECT_EQ(full["choices"][0]["message"]["content"], "hi");
    EXPECT_EQ(full["choices"][0]["finish_reason"], "stop");
    EXPECT_EQ(full["choices"][1]["index"], 1);
    EXPECT_EQ(full["choices"][1]["finish_reason"], "length");
    EXPECT_EQ(full["usage"]["total_tokens"], 5);
    EXPECT_EQ(full["usage"]["prompt_tokens_details"]["cached_tokens"], 1);
    const auto first = stream_chunk(h, 0, "", true, std::nullopt, false);
    EXPECT_EQ(first["choices"][0]["delta"]["role"], "assistant");
    EXPECT_FALSE(first.contains("usage"));
    const auto last = stream_chunk(h, 2, "", false, FinishReason::ContextFull, true);
    EXPECT_TRUE(last["choices"][0]["delta"].empty());
    EXPECT_EQ(last["choices"][0]["index"], 2);
    EXPECT_EQ(last["choices"][0]["finish_reason"], "length");
    EXPECT_TRUE(last["usage"].is_null());
    EXPECT_EQ(sse_event(usage_chunk(h, {1, 1, 0})).rfind("data: {", 0), 0u);
    const ApiError e(404, "gone", "model", "model_not_found");
    EXPECT_EQ(error_body(e).dump(), R"({"error":{"message":"gone","type":"not_found_error","param":"model","code":"model_not_found"}})");
}

}  // namespace
}  // namespace folio::server
