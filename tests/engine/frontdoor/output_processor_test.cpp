// The output processor on scripted core events: the text each token shows for every way the core
// ends a request (an end token's text never shown, held text released at max_tokens, cancel, context,
// error), a stop string ending the request here with the tokens the core sampled after it dropped and
// the request handed back for abort, forks, ids the tokenizer cannot decode, unknown requests.
#include "engine/frontdoor/output_processor.h"

#include <gtest/gtest.h>

#include <memory>

#include "engine/core/error.h"
#include "engine/tokenizer/byte_tokenizer.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

std::shared_ptr<const Tokenizer> llama2() {
    static std::shared_ptr<const Tokenizer> tok = SentencePieceTokenizer::load(test::fixture_path("tokenizers/llama2/tokenizer.model"));
    return tok;
}

std::shared_ptr<const Tokenizer> bytes() { return std::make_shared<ByteTokenizer>(300); }

CoreEvent tok(RequestId id, int32_t token) {
    CoreEvent e;
    e.id = id;
    e.token = token;
    return e;
}

// The core's last event for a request: with its last token (token >= 0) or without one.
CoreEvent last(RequestId id, int32_t token, FinishReason reason, std::string message = {}) {
    CoreEvent e = tok(id, token);
    e.finished = true;
    e.reason = reason;
    e.message = std::move(message);
    e.prompt_ids = {1, 2, 3};
    return e;
}

OutputRequest with_stops(std::vector<std::string> stops) {
    OutputRequest r;
    r.stop_strings = std::move(stops);
    r.prompt_ids = {7, 8, 9};
    return r;
}

struct Processed {
    std::vector<Event> events;
    std::vector<RequestId> aborts;
};

Processed feed(OutputProcessor& p, std::vector<CoreEvent> core_events) {
    Processed out;
    p.process(std::move(core_events), out.events, out.aborts);
    return out;
}

// Texts of the Token events, in order.
std::vector<std::string> token_texts(const std::vector<Event>& events) {
    std::vector<std::string> t;
    for (const Event& e : events)
        if (e.kind == Event::Kind::Token) t.push_back(e.text);
    return t;
}

// "The quick brown fox": ▁The ▁quick ▁brown ▁fo x
TEST(OutputProcessor, AnEndTokensTextIsNeverShownWhatWasHeldIs) {
    OutputProcessor p(llama2(), "llama2");
    p.add(1, with_stops({"brown cow"}));
    auto out = feed(p, {tok(1, 450), tok(1, 17354), last(1, 2, FinishReason::Eos)});  // "The brown" + </s>
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{"The", " ", "brown"}));  // "brown" was held
    ASSERT_EQ(out.events.size(), 4u);
    EXPECT_EQ(out.events.back().kind, Event::Kind::Finished);
    EXPECT_EQ(out.events.back().reason, FinishReason::Eos);
    EXPECT_EQ(out.events.back().text, "");
    EXPECT_EQ(out.events[2].token, 2);  // the end id itself is reported
    EXPECT_FALSE(p.has(1));

    // A stop token id that is ordinary text (the core ended the request on it): not shown either.
    p.add(2, {});
    out = feed(p, {tok(2, 450), last(2, 4996, FinishReason::Eos)});
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{"The", ""}));
    EXPECT_EQ(out.events.back().reason, FinishReason::Eos);

    // An end token while half a character is held: the batch decode would show U+FFFD there, and so do we.
    OutputProcessor b(bytes(), "bytes");
    b.add(3, {});
    out = feed(b, {tok(3, 3 + 'a'), tok(3, 3 + 0xE2), tok(3, 3 + 0x82), last(3, 2, FinishReason::Eos)});
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{"a", "", "", "\xEF\xBF\xBD\xEF\xBF\xBD"}));
}

TEST(OutputProcessor, AnIgnoredEosPrintsNothingAndMaxTokensReleasesEverything) {
    OutputProcessor p(llama2(), "llama2");
    p.add(1, {});
    // ignore_eos: the core goes on past </s>, which prints nothing.
    auto out = feed(p, {tok(1, 450), tok(1, 2), tok(1, 4996), last(1, 2, FinishReason::Length)});
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{"The", "", " quick", ""}));
    EXPECT_EQ(out.events.back().reason, FinishReason::Length);

    // " quick" could begin the stop string, but the request ends: it is released with its token.
    p.add(2, with_stops({"quick brown fox"}));
    out = feed(p, {tok(2, 450), last(2, 4996, FinishReason::Length)});
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{"The", " quick"}));
    EXPECT_EQ(out.events.back().text, "");

    // An unfinished character at the length limit becomes U+FFFD.
    OutputProcessor b(bytes(), "bytes");
    b.add(3, {});
    out = feed(b, {tok(3, 3 + 'a'), last(3, 3 + 0xE2, FinishReason::Length)});
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{"a", "\xEF\xBF\xBD"}));
}

TEST(OutputProcessor, AStopStringEndsTheRequestHereAndTheTokensAfterItNeverShow) {
    OutputProcessor p(llama2(), "llama2");
    p.add(1, with_stops({"ick brown f"}));
    CoreEvent completing = tok(1, 1701);  // "▁fo" completes the stop string
    completing.timings.generated_tokens = 4;
    completing.timings.ttft_ms = 12.5;
    auto out = feed(p, {tok(1, 450), tok(1, 4996), tok(1, 17354), completing, tok(1, 29916)});
    // The core had already sampled "x" after it: dropped.
    ASSERT_EQ(out.events.size(), 5u);
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{"The", " qu", "", ""}));
    const Event& end = out.events.back();
    EXPECT_EQ(end.kind, Event::Kind::Finished);
    EXPECT_EQ(end.reason, FinishReason::StopString);
    EXPECT_EQ(end.text, "");
    EXPECT_EQ(end.timings.generated_tokens, 4);  // as of the token that completed it
    EXPECT_EQ(end.timings.ttft_ms, 12.5);
    EXPECT_EQ(end.prompt_ids, (std::vector<int32_t>{7, 8, 9}));
    EXPECT_EQ(out.aborts, (std::vector<RequestId>{1}));  // the core still runs it
    EXPECT_FALSE(p.has(1));
    // Whatever the core reports before the abort reaches it: dropped too.
    out = feed(p, {tok(1, 450), last(1, -1, FinishReason::Cancelled)});
    EXPECT_TRUE(out.events.empty());
    EXPECT_TRUE(out.aborts.empty());
}

TEST(OutputProcessor, AStopStringOnTheCoresLastTokenWinsAndNeedsNoAbort) {
    OutputProcessor p(llama2(), "llama2");
    p.add(1, with_stops({"row"}));
    const auto out = feed(p, {tok(1, 450), tok(1, 4996), last(1, 17354, FinishReason::Length)});
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{"The", " quick", " b"}));
    EXPECT_EQ(out.events.back().reason, FinishReason::StopString);
    EXPECT_EQ(out.events.back().prompt_ids, (std::vector<int32_t>{1, 2, 3}));  // the core's
    EXPECT_TRUE(out.aborts.empty());
}

TEST(OutputProcessor, CancelContextAndErrorsReleaseHeldTextOnTheirLastEvent) {
    OutputProcessor b(bytes(), "bytes");
    b.add(1, with_stops({"xyz"}));
    auto out = feed(b, {tok(1, 3 + 'a'), tok(1, 3 + 'x'), tok(1, 3 + 0xC3), last(1, -1, FinishReason::Cancelled)});
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{"a", "", ""}));
    EXPECT_EQ(out.events.back().kind, Event::Kind::Finished);
    EXPECT_EQ(out.events.back().reason, FinishReason::Cancelled);
    EXPECT_EQ(out.events.back().text, "x\xEF\xBF\xBD");

    // The context is full after a token that may begin a stop string: it is held to the end event.
    b.add(2, with_stops({"xyz"}));
    out = feed(b, {tok(2, 3 + 'a'), last(2, 3 + 'x', FinishReason::ContextFull)});
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{"a", ""}));
    EXPECT_EQ(out.events.back().reason, FinishReason::ContextFull);
    EXPECT_EQ(out.events.back().text, "x");

    b.add(3, {});
    out = feed(b, {tok(3, 3 + 'a'), last(3, -1, FinishReason::Error, "device lost")});
    ASSERT_EQ(out.events.size(), 2u);
    EXPECT_EQ(out.events.back().kind, Event::Kind::Error);
    EXPECT_EQ(out.events.back().message, "device lost");
    EXPECT_EQ(out.events.back().prompt_ids, (std::vector<int32_t>{1, 2, 3}));
}

TEST(OutputProcessor, RequestsAreIndependentAndUnknownOnesAreDropped) {
    OutputProcessor b(bytes(), "bytes");
    OutputRequest r = with_stops({"b"});
    r.input_ms = 42;
    b.add(1, r);
    b.add(2, {});
    const auto out = feed(b, {tok(1, 3 + 'a'), tok(2, 3 + 'b'), tok(99, 3 + 'c'), tok(1, 3 + 'b'), last(2, 3 + 'c', FinishReason::Length)});
    std::string one, two;
    for (const Event& e : out.events) (e.id == 1 ? one : two) += e.text;
    EXPECT_EQ(one, "a");
    EXPECT_EQ(two, "bc");
    for (const Event& e : out.events) EXPECT_NE(e.id, 99u);
    ASSERT_EQ(out.events.size(), 6u);
    EXPECT_EQ(out.events[3].reason, FinishReason::StopString);
    EXPECT_EQ(out.events[3].timings.input_ms, 42);  // the front door's own time, on the last event
    EXPECT_EQ(b.num_requests(), 0u);
}

TEST(OutputProcessor, AForkContinuesTheParentsTextWithItsStopStrings) {
    OutputProcessor p(llama2(), "llama2");
    p.add(1, with_stops({"fox"}));
    feed(p, {tok(1, 450)});
    ASSERT_TRUE(p.fork(1, 2, /*continues_text=*/true));
    const auto out = feed(p, {tok(2, 4996), tok(2, 17354), tok(2, 1701), tok(2, 29916)});
    EXPECT_EQ(token_texts(out.events), (std::vector<std::string>{" quick", " brown", " ", ""}));  // no leading-space rule
    EXPECT_EQ(out.events.back().reason, FinishReason::StopString);
    EXPECT_EQ(out.events.back().prompt_ids, (std::vector<int32_t>{7, 8, 9}));
    EXPECT_TRUE(p.has(1));
    EXPECT_FALSE(p.fork(5, 6, true));  // no such parent here
}

TEST(OutputProcessor, AnIdTheTokenizerCannotDecodeEndsTheRequestWithAnError) {
    OutputProcessor b(bytes(), "bytes");  // 300 ids: a model with a padded vocabulary may sample 300+
    b.add(1, {});
    const auto out = feed(b, {tok(1, 3 + 'a'), tok(1, 310), tok(1, 3 + 'b')});
    ASSERT_EQ(out.events.size(), 3u);
    EXPECT_EQ(out.events[1].token, 310);
    EXPECT_EQ(out.events[2].kind, Event::Kind::Error);
    EXPECT_NE(out.events[2].message.find("cannot show the reply"), std::string::npos) << out.events[2].message;
    EXPECT_EQ(out.aborts, (std::vector<RequestId>{1}));
}

TEST(OutputProcessor, AModelWithoutATokenizerIsRefusedWithAReason) {
    try {
        OutputProcessor p(nullptr, "dummy:tiny");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("dummy:tiny has no tokenizer"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace folio
