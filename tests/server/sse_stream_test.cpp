// The SSE framing of a streamed completion on its own (no HTTP): events are `data: <json>` lines
// ended by a blank line, the first chunk of a choice carries the chat role, each choice closes once
// with its finish_reason, usage comes last when asked, then `data: [DONE]`; an error after the start
// is one event in OpenAI's error shape followed by [DONE], and nothing is written after the end.
#include <gtest/gtest.h>

#include "app/server/sse_stream.h"

namespace folio::server {
namespace {

using json = nlohmann::ordered_json;

ResponseHeader chat_header() { return {Endpoint::ChatCompletions, "chatcmpl-abc", 1700000000, "m"}; }

// The events of `sse` text: each `data: X` payload, checking the framing on the way.
std::vector<std::string> payloads(const std::string& sse) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < sse.size()) {
        const size_t end = sse.find("\n\n", pos);
        EXPECT_NE(end, std::string::npos) << "an event not ended by a blank line: " << sse.substr(pos);
        if (end == std::string::npos) break;
        const std::string ev = sse.substr(pos, end - pos);
        EXPECT_EQ(ev.rfind("data: ", 0), 0u) << ev;
        EXPECT_EQ(ev.find('\n'), std::string::npos) << "one line per event: " << ev;
        out.push_back(ev.substr(6));
        pos = end + 2;
    }
    return out;
}

TEST(SseStream, ChatChunksRoleFirstThenFinishThenDone) {
    SseStream s(chat_header(), 1, false);
    std::string out = s.token(0, "Once");
    EXPECT_FALSE(s.shows(0, ""));  // the role has gone: an empty text waits
    EXPECT_EQ(s.token(0, ""), "");
    out += s.token(0, " upon");
    out += s.finish(0, "", FinishReason::Length, Usage{3, 2, 0});
    EXPECT_TRUE(s.ended());
    EXPECT_FALSE(s.failed());
    const auto ev = payloads(out);
    ASSERT_EQ(ev.size(), 4u) << out;
    const json first = json::parse(ev[0]);
    EXPECT_EQ(first["object"], "chat.completion.chunk");
    EXPECT_EQ(first["id"], "chatcmpl-abc");
    EXPECT_EQ(first["choices"][0]["delta"]["role"], "assistant");
    EXPECT_EQ(first["choices"][0]["delta"]["content"], "Once");
    EXPECT_TRUE(first["choices"][0]["finish_reason"].is_null());
    const json second = json::parse(ev[1]);
    EXPECT_FALSE(second["choices"][0]["delta"].contains("role"));
    EXPECT_EQ(second["choices"][0]["delta"]["content"], " upon");
    EXPECT_EQ(json::parse(ev[2])["choices"][0]["finish_reason"], "length");
    EXPECT_FALSE(json::parse(ev[2]).contains("usage"));  // not asked
    EXPECT_EQ(ev[3], "[DONE]");
    // Nothing after the end.
    EXPECT_EQ(s.token(0, "more"), "");
    EXPECT_EQ(s.finish(0, "x", FinishReason::Eos, {}), "");
    EXPECT_EQ(s.error(ApiError(500, "late")), "");
}

TEST(SseStream, ALastTextAndTheFirstEmptyChunkAreSent) {
    SseStream s(chat_header(), 1, false);
    EXPECT_TRUE(s.shows(0, ""));  // the first chunk carries the role even with no text
    std::string out = s.token(0, "");
    out += s.finish(0, "tail", FinishReason::StopString, {});
    const auto ev = payloads(out);
    ASSERT_EQ(ev.size(), 4u);
    EXPECT_EQ(json::parse(ev[0])["choices"][0]["delta"]["role"], "assistant");
    EXPECT_EQ(json::parse(ev[1])["choices"][0]["delta"]["content"], "tail");
    EXPECT_EQ(json::parse(ev[2])["choices"][0]["finish_reason"], "stop");
    EXPECT_EQ(ev[3], "[DONE]");
}

TEST(SseStream, UsageComesOnceEveryChoiceHasEnded) {
    SseStream s({Endpoint::Completions, "cmpl-x", 1, "m"}, 2, true);
    std::string out = s.token(1, "b");
    out += s.token(0, "a");
    out += s.finish(1, "", FinishReason::Eos, {});
    EXPECT_FALSE(s.ended());
    EXPECT_EQ(s.finish(1, "", FinishReason::Eos, {}), "");  // a choice closes once
    out += s.finish(0, "", FinishReason::Length, Usage{4, 5, 2});
    EXPECT_TRUE(s.ended());
    const auto ev = payloads(out);
    ASSERT_EQ(ev.size(), 6u) << out;
    const json c0 = json::parse(ev[0]);
    EXPECT_EQ(c0["object"], "text_completion");
    EXPECT_EQ(c0["choices"][0]["index"], 1);
    EXPECT_EQ(c0["choices"][0]["text"], "b");
    EXPECT_TRUE(c0["usage"].is_null());  // include_usage: null on every choice chunk
    const json usage = json::parse(ev[4]);
    EXPECT_TRUE(usage["choices"].empty());
    EXPECT_EQ(usage["usage"]["prompt_tokens"], 4);
    EXPECT_EQ(usage["usage"]["completion_tokens"], 5);
    EXPECT_EQ(ev[5], "[DONE]");
}

TEST(SseStream, LogprobsGoWithTheChunkThatCarriesThem) {
    SseStream s(chat_header(), 1, false);
    const json lp = {{"content", json::array({{{"token", "x"}, {"logprob", -0.5}}})}};
    std::string out = s.token(0, "x", lp);
    out += s.finish(0, "", FinishReason::Eos, {}, nullptr, lp);
    const auto ev = payloads(out);
    ASSERT_EQ(ev.size(), 3u);
    EXPECT_EQ(json::parse(ev[0])["choices"][0]["logprobs"], lp);
    EXPECT_EQ(json::parse(ev[1])["choices"][0]["logprobs"], lp);  // the tokens whose text never showed
}

TEST(SseStream, AnErrorAfterTheStartIsAnEventInOpenAisShapeThenDone) {
    SseStream s(chat_header(), 2, true);
    std::string out = s.token(0, "Once");
    out += s.finish(1, "", FinishReason::Eos, {});
    out += s.error(ApiError(500, "the KV pool cannot hold this conversation"));
    EXPECT_TRUE(s.ended());
    EXPECT_TRUE(s.failed());
    const auto ev = payloads(out);
    ASSERT_EQ(ev.size(), 5u) << out;
    // Keys in OpenAI's order; param and code null when empty; no usage chunk after an error.
    EXPECT_EQ(ev[3], R"({"error":{"message":"the KV pool cannot hold this conversation","type":"server_error","param":null,"code":null}})");
    EXPECT_EQ(ev[4], "[DONE]");
    EXPECT_EQ(s.token(0, "after"), "");
    EXPECT_EQ(s.error(ApiError(500, "again")), "");
    EXPECT_EQ(s.finish(0, "", FinishReason::Eos, {}), "");
}

TEST(SseStream, AnErrorKeepsItsParamAndCode) {
    SseStream s(chat_header(), 1, false);
    const auto ev = payloads(s.error(ApiError(400, "too long", "messages", "context_length_exceeded")));
    ASSERT_EQ(ev.size(), 2u);
    const json e = json::parse(ev[0])["error"];
    EXPECT_EQ(e["type"], "invalid_request_error");
    EXPECT_EQ(e["param"], "messages");
    EXPECT_EQ(e["code"], "context_length_exceeded");
}

}  // namespace
}  // namespace folio::server
