// The tokenizer.json pre-tokenizers and normalizers, one behaviour at a time; expected values are the
// Hugging Face tokenizers library's (its documented examples where it has them).
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/tokenizer/normalizers.h"
#include "engine/tokenizer/pre_tokenizers.h"
#include "engine/tokenizer/tiktoken_split.h"
#include "engine/tokenizer/unicode_text.h"

namespace folio::test {
namespace {

struct Collect final : PieceSink {
    std::vector<std::string> pieces;
    std::vector<bool> starts;
    void piece(std::string_view text, bool at_start) override {
        pieces.emplace_back(text);
        starts.push_back(at_start);
    }
};

std::vector<std::string> run(const PreTokenizer& p, std::string_view text, bool at_start = true) {
    Collect c;
    p.split(text, at_start, c);
    return c.pieces;
}

using V = std::vector<std::string>;

TEST(HfSplit, EveryBehaviorOnTheLibrarysExample) {
    const std::string text = "The-final--countdown";
    auto split = [&](SplitBehavior b, bool invert = false) {
        return run(*make_split(make_literal_pattern("-"), b, invert), text);
    };
    EXPECT_EQ(split(SplitBehavior::Removed), (V{"The", "final", "countdown"}));
    EXPECT_EQ(split(SplitBehavior::Isolated), (V{"The", "-", "final", "-", "-", "countdown"}));
    EXPECT_EQ(split(SplitBehavior::MergedWithPrevious), (V{"The-", "final-", "-", "countdown"}));
    EXPECT_EQ(split(SplitBehavior::MergedWithNext), (V{"The", "-final", "-", "-countdown"}));
    EXPECT_EQ(split(SplitBehavior::Contiguous), (V{"The", "-", "final", "--", "countdown"}));
    // invert: the text between delimiters is what matched.
    EXPECT_EQ(split(SplitBehavior::Removed, true), (V{"-", "-", "-"}));
    EXPECT_EQ(split(SplitBehavior::MergedWithPrevious, true), (V{"The", "-final", "-", "-countdown"}));
}

TEST(HfSplit, RegexPatternsAndEdges) {
    auto words = make_split(make_regex_pattern("\\w+"), SplitBehavior::Removed, true);
    EXPECT_EQ(run(*words, "hello, wörld_1 ²!"), (V{"hello", "wörld_1", "²"}));  // Oniguruma's \w takes ²
    auto spaces = make_split(make_regex_pattern("\\s+"), SplitBehavior::Removed, false);
    EXPECT_EQ(run(*spaces, "a\xC2\xA0 b\xC2\x85" "c"), (V{"a", "b", "c"}));  // \s is White_Space: NBSP, NEL
    auto digits = make_split(make_regex_pattern("\\d"), SplitBehavior::Isolated, false);
    EXPECT_EQ(run(*digits, "a12\xD9\xA3"), (V{"a", "1", "2", "\xD9\xA3"}));  // ARABIC-INDIC DIGIT THREE is Nd
    auto hex = make_split(make_regex_pattern("\\h+"), SplitBehavior::Isolated, false);
    EXPECT_EQ(run(*hex, "xbeefz"), (V{"x", "beef", "z"}));  // Oniguruma's \h: a hex digit
    EXPECT_EQ(run(*spaces, ""), V{});
    EXPECT_EQ(run(*make_split(make_literal_pattern(""), SplitBehavior::Removed, false), "abc"), V{"abc"});
    // The first piece keeps at_start only when it begins the text.
    Collect c;
    make_split(make_literal_pattern("-"), SplitBehavior::Removed, false)->split("-a-b", true, c);
    EXPECT_EQ(c.pieces, (V{"a", "b"}));
    EXPECT_EQ(c.starts, (std::vector<bool>{false, false}));
    EXPECT_THROW(make_regex_pattern("(unclosed"), Error);
}

TEST(HfSplit, OnigEscapesBecomePcre2Properties) {
    EXPECT_EQ(onig_to_pcre2("\\s+(?!\\S)"), "\\p{White_Space}+(?!\\P{White_Space})");
    EXPECT_EQ(onig_to_pcre2("[^\\s\\p{L}]"), "[^\\p{White_Space}\\p{L}]");
    EXPECT_EQ(onig_to_pcre2("\\u00e9[\\d]"), "\\x{00e9}[\\p{Nd}]");
    EXPECT_EQ(onig_to_pcre2("[]\\s]"), "[]\\p{White_Space}]");  // a leading ']' is literal
}

TEST(HfTiktokenSplit, Llama3AndQwenPatterns) {
    auto llama = make_split(make_regex_pattern(std::string(kLlama3Pattern)), SplitBehavior::Isolated, false);
    auto qwen = make_split(make_regex_pattern(std::string(kQwen2Pattern)), SplitBehavior::Isolated, false);
    EXPECT_EQ(run(*llama, "I'M  here's 12345\n\n  x"), (V{"I", "'M", " ", " here", "'s", " ", "123", "45", "\n\n", " ", " x"}));
    EXPECT_EQ(run(*qwen, "12345"), (V{"1", "2", "3", "4", "5"}));
    EXPECT_EQ(run(*llama, "a ...\r\n\tb"), (V{"a", " ...\r\n", "\tb"}));
    EXPECT_EQ(run(*llama, "x  \n  y"), (V{"x", "  \n", " ", " y"}));
    EXPECT_EQ(run(*llama, "'\xC5\xBF"), (V{"'\xC5\xBF"}));  // 'ſ is a contraction under (?i)
}

TEST(HfSplit, MistralNemoStyleRegexRunsOnPcre2) {
    // Tekken's pattern (Mistral-Nemo): case-aware letter runs, so camel case splits.
    const std::string tekken =
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|"
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*|\\p{N}|"
        " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    auto split = make_split(make_regex_pattern(tekken), SplitBehavior::Isolated, false);
    EXPECT_EQ(run(*split, "HelloWorld  ABC 42/\n"), (V{"Hello", "World", " ", " ABC", " ", "4", "2", "/\n"}));
}

TEST(HfByteLevel, PrefixSpaceRegexAndMapping) {
    EXPECT_EQ(run(*make_byte_level(false, true, false), "Hello my friend, how's it?"),
              (V{"Hello", " my", " friend", ",", " how", "'s", " it", "?"}));
    EXPECT_EQ(run(*make_byte_level(true, true, false), "Hello"), (V{" Hello"}));
    EXPECT_EQ(run(*make_byte_level(true, true, false), " Hello"), (V{" Hello"}));  // already starts with a space
    EXPECT_EQ(run(*make_byte_level(false, false, false), "a b"), (V{"a b"}));
    EXPECT_EQ(run(*make_byte_level(false, false, true), "a b\n"), (V{"a\xC4\xA0" "b\xC4\x8A"}));  // 'Ġ', 'Ċ'
}

TEST(HfMetaspace, PrependSchemesAndSplit) {
    const std::string u = "\xE2\x96\x81";  // '▁'
    auto always = make_metaspace(u, PrependScheme::Always, true);
    EXPECT_EQ(run(*always, "Hey friend!"), (V{u + "Hey", u + "friend!"}));
    EXPECT_EQ(run(*always, "Hey friend!", false), (V{u + "Hey", u + "friend!"}));
    EXPECT_EQ(run(*always, " Hey"), (V{u + "Hey"}));  // starts with the replacement: nothing prepended
    auto first = make_metaspace(u, PrependScheme::First, true);
    EXPECT_EQ(run(*first, "Hey friend!", true), (V{u + "Hey", u + "friend!"}));
    EXPECT_EQ(run(*first, "Hey friend!", false), (V{"Hey", u + "friend!"}));  // after an added token
    auto never = make_metaspace(u, PrependScheme::Never, true);
    EXPECT_EQ(run(*never, "Hey  friend"), (V{"Hey", u, u + "friend"}));
    auto whole = make_metaspace(u, PrependScheme::Always, false);
    EXPECT_EQ(run(*whole, "Hey friend"), (V{u + "Hey" + u + "friend"}));
}

TEST(HfDigits, IndividualOrRuns) {
    EXPECT_EQ(run(*make_digits(true), "Call 123 please"), (V{"Call ", "1", "2", "3", " please"}));
    EXPECT_EQ(run(*make_digits(false), "Call 123 please"), (V{"Call ", "123", " please"}));
    EXPECT_EQ(run(*make_digits(false), "x\xC2\xB2\xC2\xBDy"), (V{"x", "\xC2\xB2\xC2\xBD", "y"}));  // ²½ are numeric
}

TEST(HfSequence, StagesCutEachOthersPieces) {
    std::vector<std::unique_ptr<PreTokenizer>> stages;
    stages.push_back(make_split(make_literal_pattern(" "), SplitBehavior::Removed, false));
    stages.push_back(make_digits(true));
    EXPECT_EQ(run(*make_sequence(std::move(stages)), "ab12 c3"), (V{"ab", "1", "2", "c", "3"}));
}

std::string norm(const Normalizer& n, std::string s) {
    n.normalize(s);
    return s;
}

TEST(HfNormalizers, UnicodeForms) {
    const std::string decomposed = "e\xCC\x81", composed = "\xC3\xA9";  // e + U+0301, é
    EXPECT_EQ(norm(*make_unicode_normalizer(UnicodeForm::NFC), "caf" + decomposed), "caf" + composed);
    EXPECT_EQ(norm(*make_unicode_normalizer(UnicodeForm::NFD), composed), decomposed);
    EXPECT_EQ(norm(*make_unicode_normalizer(UnicodeForm::NFKC), "\xEF\xAC\x81 \xE2\x91\xA0"), "fi 1");  // ﬁ ①
    EXPECT_EQ(norm(*make_unicode_normalizer(UnicodeForm::NFKD), "\xEF\xAC\x81" + composed), "fi" + decomposed);
    EXPECT_EQ(norm(*make_unicode_normalizer(UnicodeForm::NFC), "plain ascii"), "plain ascii");
}

TEST(HfNormalizers, LowercaseStripPrependReplaceSequence) {
    EXPECT_EQ(norm(*make_lowercase(), "HeLLo \xC3\x89T\xC3\x89 \xCE\xA3\xCE\xA3"), "hello \xC3\xA9t\xC3\xA9 \xCF\x83\xCF\x83");  // no final sigma
    EXPECT_EQ(norm(*make_lowercase(), "\xC4\xB0"), "i\xCC\x87");  // İ lowercases to two characters
    EXPECT_EQ(norm(*make_strip(true, true), " \t\xE3\x80\x80 x \n"), "x");
    EXPECT_EQ(norm(*make_strip(false, true), "  x  "), "  x");
    EXPECT_EQ(norm(*make_prepend("\xE2\x96\x81"), "hi"), "\xE2\x96\x81hi");
    EXPECT_EQ(norm(*make_prepend("\xE2\x96\x81"), ""), "");  // an empty text stays empty
    EXPECT_EQ(norm(*make_replace(make_literal_pattern(" "), "\xE2\x96\x81"), "a b  c"), "a\xE2\x96\x81" "b\xE2\x96\x81\xE2\x96\x81" "c");
    EXPECT_EQ(norm(*make_replace(make_regex_pattern(" {2,}"), " "), "a    b c"), "a b c");
    // Llama-2 / Mistral tokenizer.json: Prepend('▁') then Replace(' ' -> '▁').
    std::vector<std::unique_ptr<Normalizer>> seq;
    seq.push_back(make_prepend("\xE2\x96\x81"));
    seq.push_back(make_replace(make_literal_pattern(" "), "\xE2\x96\x81"));
    EXPECT_EQ(norm(*make_normalizer_sequence(std::move(seq)), "Hello world"), "\xE2\x96\x81Hello\xE2\x96\x81world");
}

}  // namespace
}  // namespace folio::test
