// A request's text token by token: stop strings across token boundaries (held back while they may
// still match, released on a false start), what end() releases, and a property test against a plain
// reference on random byte streams. (End tokens and max_tokens are the core's: the text they leave is
// checked in output_processor_test.)
#include <gtest/gtest.h>

#include <random>

#include "engine/core/error.h"
#include "engine/frontdoor/text_stream.h"
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
    bool stopped;
};

std::vector<Step> run(TextStream& c, const std::vector<int>& ids) {
    std::vector<Step> out;
    for (int id : ids) {
        const TextChunk d = c.push(id);
        out.push_back({d.text, d.stopped});
        if (d.stopped) break;
    }
    return out;
}

std::vector<std::string> texts(const std::vector<Step>& steps) {
    std::vector<std::string> t;
    for (const auto& s : steps) t.push_back(s.text);
    return t;
}


// "The quick brown fox": ▁The ▁quick ▁brown ▁fo x
const std::vector<int> kFox = {450, 4996, 17354, 1701, 29916};

TEST(TextStream, StopStringSplitOverThreeTokens) {
    TextStream c(llama2(), {"ick brown f"});
    const auto steps = run(c, kFox);
    ASSERT_EQ(steps.size(), 4u);  // stops at "▁fo"
    // "ick" may begin the stop string: held; " brown" keeps it alive; " fo" completes it.
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"The", " qu", "", ""}));
    EXPECT_TRUE(steps.back().stopped);
    EXPECT_TRUE(c.ended());
    EXPECT_EQ(c.tokens(), 4);
    EXPECT_THROW(c.push(29916), Error);  // nothing after a stop
    EXPECT_EQ(c.end(), "");              // the stop string and what followed it are never released
}

TEST(TextStream, FalseStartIsReleased) {
    // "ick brown f" begins at "ick", but " black" follows: all of it is released then.
    TextStream c(llama2(), {"ick brown f"});
    const std::vector<int> ids = {4996, 4628, 17354};  // ▁quick ▁black ▁brown
    const auto steps = run(c, ids);
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"qu", "ick black", " brown"}));
    EXPECT_FALSE(steps.back().stopped);
    EXPECT_EQ(c.end(), "");
}

TEST(TextStream, StopStringInsideOneTokenAndAtTheStart) {
    TextStream a(llama2(), {"row"});
    auto steps = run(a, kFox);
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"The", " quick", " b"}));
    EXPECT_TRUE(steps.back().stopped);

    TextStream b(llama2(), {"The"});
    steps = run(b, kFox);
    EXPECT_EQ(texts(steps), (std::vector<std::string>{""}));
    EXPECT_TRUE(steps.back().stopped);
}

TEST(TextStream, EarliestOfSeveralStopStringsWins) {
    TextStream c(llama2(), {"fox", "quick brown", "x"});
    const auto steps = run(c, kFox);
    std::string all;
    for (const auto& s : steps) all += s.text;
    EXPECT_EQ(all, "The ");
    EXPECT_TRUE(steps.back().stopped);
}

TEST(TextStream, EndReleasesHeldTextAtAnyEndOfTheCores) {
    // What a request ending with max_tokens shows: " quick" could begin the stop string, but the
    // request ends, so it is released.
    TextStream c(llama2(), {"quick brown fox"});
    EXPECT_EQ(texts(run(c, {450, 4996})), (std::vector<std::string>{"The", " "}));
    EXPECT_EQ(c.end(), "quick");
    // An unfinished character at the end becomes U+FFFD.
    ByteTokenizer bytes(300);
    TextStream e(bytes, {});
    EXPECT_EQ(texts(run(e, {3 + 'a', 3 + 0xE2})), (std::vector<std::string>{"a", ""}));
    EXPECT_EQ(e.end(), "\xEF\xBF\xBD");
    EXPECT_TRUE(e.ended());
}

TEST(TextStream, ContinuingTextKeepsTheLeadingSpace) {
    TextStream c(llama2(), {}, /*continues_text=*/true);
    EXPECT_EQ(c.push(4996).text, " quick");
}

TEST(TextStream, FinishReleasesHeldText) {
    ByteTokenizer bytes(300);
    TextStream c(bytes, {"xyz"});
    EXPECT_EQ(c.push(3 + 'a').text, "a");
    EXPECT_EQ(c.push(3 + 'x').text, "");
    EXPECT_EQ(c.push(3 + 0xC3).text, "");  // half of "é"
    EXPECT_EQ(c.end(), "x\xEF\xBF\xBD");
    EXPECT_TRUE(c.ended());
    EXPECT_THROW(c.push(3 + 'a'), Error);
}

TEST(TextStream, MultiByteStopStrings) {
    ByteTokenizer bytes(300);
    // "日本" as six byte tokens; the stop string is the second character.
    TextStream c(bytes, {"\xE6\x9C\xAC"});
    const std::string text = "\xE6\x97\xA5\xE6\x9C\xAC";
    std::vector<int> ids;
    for (unsigned char ch : text) ids.push_back(3 + ch);
    const auto steps = run(c, ids);
    EXPECT_EQ(texts(steps), (std::vector<std::string>{"", "", "\xE6\x97\xA5", "", "", ""}));
    EXPECT_TRUE(steps.back().stopped);
}

// Random texts over a small alphabet so that stop strings, their false starts and overlaps are
// frequent; tokens are bytes. Reference: the text up to the first occurrence of any stop string,
// or up to max_tokens, where the core ends the request and the front door calls end().
TEST(TextStream, PropertyAgainstReference) {
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
        bool reference_stops = false;
        int tokens = int(text.size());
        if (end_at != std::string::npos && int(end_at) < max_tokens) {
            expected = text.substr(0, cut);
            reference_stops = true;
            tokens = int(end_at) + 1;
        } else if (int(text.size()) >= max_tokens) {
            expected = text.substr(0, size_t(max_tokens));
            tokens = max_tokens;
        }

        TextStream c(bytes, stops);
        std::string got;
        bool got_stop = false;
        int pushed = 0;
        for (char ch : text) {
            const TextChunk d = c.push(3 + int(uint8_t(ch)));
            ++pushed;
            got += d.text;
            ASSERT_EQ(expected.compare(0, got.size(), got), 0) << "released text that is not output, iter " << iter;
            if (d.stopped) {
                got_stop = true;
                break;
            }
            if (pushed == max_tokens) break;  // the core ends it with this token (Length)
        }
        got += c.end();
        ASSERT_EQ(got, expected) << "iter " << iter;
        ASSERT_EQ(got_stop, reference_stops) << "iter " << iter;
        ASSERT_EQ(pushed, tokens) << "iter " << iter;
        stopped += reference_stops;
    }
    EXPECT_GT(stopped, 500);  // the property was exercised on many matches
}

}  // namespace
}  // namespace folio
