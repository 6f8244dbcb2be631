// Stop conditions token by token: EOS and stop token ids, stop strings across token boundaries
// (held back while they may still match, released on a false start), max_tokens, and a property
// test against a plain reference on random byte streams.
#include <gtest/gtest.h>

#include <random>

#include "engine/core/error.h"
#include "engine/sampling/stop_checker.h"
#include "engine/tokenizer/byte_tokenizer.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

const Tokenizer& llama2() {
    static auto tok = SentencePieceTokenizer::load(test::fixture_path("tokenizers/llama2/tokenizer.model"));
    return *tok;
}

struct Step {
    std::string text;
    bool finished;
    FinishReason reason;
};

std::vector<Step> run(StopChecker& c, const std::vector<int>& ids) {
    std::vector<Step> out;
    for (int id : ids) {
        const StopDecision d = c.push(id);
        out.push_back({d.text, d.finished, d.reason});
        if (d.finished) break;
    }
    return out;
}

std::vector<std::string> texts(const std::vector<Step>& steps) {
    std::vector<std::string> t;
    for (const auto& s : steps) t.push_back(s.text);
    return t;
}

StopConditions with_stops(std::vector<std::string> stops, int max_tokens = 100) {
    StopConditions s;
    s.max_tokens = max_tokens;
    s.stop_strings = std::move(stops);
    return s;
}

// "The quick brown fox": ▁The ▁quick ▁brown ▁fo x
const std::vector<int> kFox = {450, 4996, 17354, 1701, 29916};

TEST(StopChecker, StopStringSplitOverThreeTokens) {
    StopChecker c(llama2(), with_stops({"ick brown f"}), {2});
    const auto steps = run(c, kFox);
    ASSERT_EQ(steps.size(), 4u);  // stops at "▁fo"
    // "ick" may begin the stop string: held; " brown" keeps it alive; " fo" completes it.
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"The", " qu", "", ""}));
    EXPECT_TRUE(steps.back().finished);
    EXPECT_EQ(steps.back().reason, FinishReason::StopString);
    EXPECT_TRUE(c.finished());
    EXPECT_EQ(c.generated(), 4);
    EXPECT_THROW(c.push(29916), Error);  // nothing after a finish
}

TEST(StopChecker, FalseStartIsReleased) {
    // "ick brown f" begins at "ick", but " black" follows: all of it is released then.
    StopChecker c(llama2(), with_stops({"ick brown f"}), {2});
    const std::vector<int> ids = {4996, 4628, 17354};  // ▁quick ▁black ▁brown
    const auto steps = run(c, ids);
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"qu", "ick black", " brown"}));
    EXPECT_FALSE(steps.back().finished);
    EXPECT_EQ(c.finish(), "");
}

TEST(StopChecker, StopStringInsideOneTokenAndAtTheStart) {
    StopChecker a(llama2(), with_stops({"row"}), {2});
    auto steps = run(a, kFox);
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"The", " quick", " b"}));
    EXPECT_EQ(steps.back().reason, FinishReason::StopString);

    StopChecker b(llama2(), with_stops({"The"}), {2});
    steps = run(b, kFox);
    EXPECT_EQ(texts(steps), (std::vector<std::string>{""}));
    EXPECT_TRUE(steps.back().finished);
}

TEST(StopChecker, EarliestOfSeveralStopStringsWins) {
    StopChecker c(llama2(), with_stops({"fox", "quick brown", "x"}), {2});
    const auto steps = run(c, kFox);
    std::string all;
    for (const auto& s : steps) all += s.text;
    EXPECT_EQ(all, "The ");
    EXPECT_EQ(steps.back().reason, FinishReason::StopString);
}

TEST(StopChecker, EosTextIsNeverEmittedHeldTextIs) {
    StopChecker c(llama2(), with_stops({"brown cow"}), {2});
    const auto steps = run(c, {450, 17354, 2});  // "The brown" + </s>
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"The", " ", "brown"}));  // "brown" was held
    EXPECT_EQ(steps.back().reason, FinishReason::Eos);

    // A stop token id that is ordinary text: its text is not emitted either.
    StopConditions s;
    s.stop_token_ids = {4996};  // ▁quick
    StopChecker d(llama2(), s, {2});
    const auto steps2 = run(d, kFox);
    EXPECT_EQ(texts(steps2), (std::vector<std::string>{"The", ""}));
    EXPECT_EQ(steps2.back().reason, FinishReason::Eos);

    // EOS while half a character is held: the batch decode would show U+FFFD there, and so do we.
    ByteTokenizer bytes(300);
    StopChecker e(bytes, StopConditions{}, {2});
    const auto steps3 = run(e, {3 + 'a', 3 + 0xE2, 3 + 0x82, 2});
    EXPECT_EQ(texts(steps3), (std::vector<std::string>{"a", "", "", "\xEF\xBF\xBD\xEF\xBF\xBD"}));
}

TEST(StopChecker, IgnoreEosButNotStopTokenIds) {
    StopConditions s;
    s.ignore_eos = true;
    s.stop_token_ids = {7};
    s.max_tokens = 4;
    StopChecker c(llama2(), s, {2});
    auto steps = run(c, {450, 2, 4996, 2, 4996});
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"The", "", " quick", ""}));
    EXPECT_EQ(steps.back().reason, FinishReason::Length);
    StopChecker d(llama2(), s, {2});
    steps = run(d, {450, 2, 7});
    EXPECT_EQ(steps.back().reason, FinishReason::Eos);
}

TEST(StopChecker, MaxTokensReleasesEverything) {
    StopChecker c(llama2(), with_stops({"quick brown fox"}, 2), {2});
    const auto steps = run(c, kFox);
    // " quick" could begin the stop string, but the sequence ends: it is released.
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"The", " quick"}));
    EXPECT_EQ(steps.back().reason, FinishReason::Length);
    // EOS as the last allowed token is still EOS.
    StopChecker d(llama2(), with_stops({}, 2), {2});
    EXPECT_EQ(run(d, {450, 2}).back().reason, FinishReason::Eos);
    // An unfinished character at the length limit becomes U+FFFD.
    ByteTokenizer bytes(300);
    StopConditions s;
    s.max_tokens = 2;
    StopChecker e(bytes, s, {2});
    EXPECT_EQ(texts(run(e, {3 + 'a', 3 + 0xE2})), (std::vector<std::string>{"a", "\xEF\xBF\xBD"}));
}

TEST(StopChecker, ContinuingTextKeepsTheLeadingSpace) {
    StopChecker c(llama2(), with_stops({}), {2}, /*continues_text=*/true);
    EXPECT_EQ(c.push(4996).text, " quick");
}

TEST(StopChecker, FinishReleasesHeldText) {
    ByteTokenizer bytes(300);
    StopChecker c(bytes, with_stops({"xyz"}), {2});
    EXPECT_EQ(c.push(3 + 'a').text, "a");
    EXPECT_EQ(c.push(3 + 'x').text, "");
    EXPECT_EQ(c.push(3 + 0xC3).text, "");  // half of "é"
    EXPECT_EQ(c.finish(), "x\xEF\xBF\xBD");
    EXPECT_TRUE(c.finished());
    EXPECT_THROW(c.push(3 + 'a'), Error);
}

TEST(StopChecker, MultiByteStopStrings) {
    ByteTokenizer bytes(300);
    // "日本" as six byte tokens; the stop string is the second character.
    StopChecker c(bytes, with_stops({"\xE6\x9C\xAC"}), {2});
    const std::string text = "\xE6\x97\xA5\xE6\x9C\xAC";
    std::vector<int> ids;
    for (unsigned char ch : text) ids.push_back(3 + ch);
    const auto steps = run(c, ids);
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"", "", "\xE6\x97\xA5", "", "", ""}));
    EXPECT_EQ(steps.back().reason, FinishReason::StopString);
}

// Random texts over a small alphabet so that stop strings, their false starts and overlaps are
// frequent; tokens are bytes. Reference: the text up to the first occurrence of any stop string.
TEST(StopChecker, PropertyAgainstReference) {
    ByteTokenizer bytes(259);
    std::mt19937 rng(2024);
    const std::string alphabet = "ab \n";
    int stopped = 0;
    for (int iter = 0; iter < 3000; ++iter) {
        std::vector<std::string> stops;
        const int nstops = int(rng() % 3);
        for (int k = 0; k < nstops; ++k) {
            std::string s;
            const int len = 1 + int(rng() % 4);
            for (int i = 0; i < len; ++i) s.push_back(alphabet[rng() % alphabet.size()]);
            stops.push_back(s);
        }
        std::string text;
        const int len = int(rng() % 30);
        for (int i = 0; i < len; ++i) text.push_back(alphabet[rng() % alphabet.size()]);
        const int max_tokens = 1 + int(rng() % 40);

        // Reference.
        size_t end_at = std::string::npos;  // index of the token that completes the first match
        size_t cut = std::string::npos;
        for (size_t i = 0; i < text.size() && end_at == std::string::npos; ++i)
            for (const auto& s : stops)
                if (i + 1 >= s.size() && text.compare(i + 1 - s.size(), s.size(), s) == 0) {
                    end_at = i;
                    cut = std::min(cut, i + 1 - s.size());
                }
        std::string expected = text;
        FinishReason reason = FinishReason::Length;
        int tokens = int(text.size());
        if (end_at != std::string::npos && int(end_at) < max_tokens) {
            expected = text.substr(0, cut);
            reason = FinishReason::StopString;
            tokens = int(end_at) + 1;
        } else if (int(text.size()) >= max_tokens) {
            expected = text.substr(0, size_t(max_tokens));
            tokens = max_tokens;
        }

        StopChecker c(bytes, with_stops(stops, max_tokens), {2});
        std::string got;
        bool finished = false;
        FinishReason got_reason = FinishReason::Length;
        int pushed = 0;
        for (char ch : text) {
            const StopDecision d = c.push(3 + int(uint8_t(ch)));
            ++pushed;
            got += d.text;
            ASSERT_EQ(expected.compare(0, got.size(), got), 0) << "released text that is not output, iter " << iter;
            if (d.finished) {
                finished = true;
                got_reason = d.reason;
                break;
            }
        }
        if (!finished) got += c.finish();
        ASSERT_EQ(got, expected) << "iter " << iter;
        if (finished) {
            ASSERT_EQ(got_reason, reason) << "iter " << iter;
            ASSERT_EQ(pushed, tokens) << "iter " << iter;
        }
        stopped += reason == FinishReason::StopString;
    }
    EXPECT_GT(stopped, 500);  // the property was exercised on many matches
}

TEST(FinishReason, Names) {
    EXPECT_STREQ(finish_reason_name(FinishReason::Eos), "stop");
    EXPECT_STREQ(finish_reason_name(FinishReason::StopString), "stop_string");
    EXPECT_STREQ(finish_reason_name(FinishReason::Length), "length");
    EXPECT_STREQ(finish_reason_name(FinishReason::ContextFull), "context");
    EXPECT_STREQ(finish_reason_name(FinishReason::Cancelled), "cancelled");
    EXPECT_STREQ(finish_reason_name(FinishReason::Error), "error");
}

}  // namespace
}  // namespace folio
