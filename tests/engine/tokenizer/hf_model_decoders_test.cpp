// tokenizer.json's BPE model, added tokens, post-processors and decoders on small hand-made files, with
// the results the Hugging Face tokenizers library gives for them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/tokenizer/decoder_stages.h"
#include "engine/tokenizer/tokenizer_json.h"
#include "tests/engine/tokenizer/hf_tokenizer_test_util.h"

namespace folio::test {
namespace {

using nlohmann::json;
using Ids = std::vector<int>;

// A tokenizer.json around a BPE model over a small vocabulary.
json bpe_file(const json& vocab, const json& merges, const json& model_extra = json::object()) {
    json model = json::object();
    model["type"] = "BPE";
    model["vocab"] = vocab;
    model["merges"] = merges;
    model.update(model_extra);
    json file = json::object();
    file["version"] = "1.0";
    file["model"] = model;
    return file;
}

std::shared_ptr<const HfTokenizer> make(const json& file, const std::optional<json>& config = std::nullopt) {
    return parse_tokenizer_json(file.dump(), config ? std::optional<std::string>(config->dump()) : std::nullopt, "test.json");
}

const json kAbcVocab = json::parse(R"({"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5, "cc": 6})");

TEST(HfBpe, MergesByRankLeftmostFirst) {
    // "ab" outranks "bc": abc -> ab c -> abc.
    auto t = make(bpe_file(kAbcVocab, {"a b", "ab c", "b c"}));
    EXPECT_EQ(t->encode("abc"), (Ids{5}));
    // "b c" first: a bc, and no merge joins a + bc.
    t = make(bpe_file(kAbcVocab, json::array({json::array({"b", "c"}), json::array({"a", "b"})})));
    EXPECT_EQ(t->encode("abc"), (Ids{0, 4}));
    // Equal ranks: the leftmost pair merges first (ccc -> cc c).
    t = make(bpe_file(kAbcVocab, {"c c"}));
    EXPECT_EQ(t->encode("ccc"), (Ids{6, 2}));
}

TEST(HfBpe, LongWordsMergeLikeShortOnes) {
    // Above 48 symbols the merge runs on a heap: same rules, same result.
    auto t = make(bpe_file(kAbcVocab, {"a b", "ab c", "c c"}));
    std::string text;
    Ids expected;
    for (int i = 0; i < 40; ++i) {
        text += "abcc";
        expected.insert(expected.end(), {5, 2});
    }
    EXPECT_EQ(t->encode(text), expected);
    EXPECT_EQ(t->encode("abcc"), (Ids{5, 2}));
}

TEST(HfBpe, IgnoreMergesTakesAWholeVocabularyWord) {
    // Merges alone give a + bc; with ignore_merges "abc" is one vocabulary entry already.
    const json merges = {"b c", "a b"};
    EXPECT_EQ(make(bpe_file(kAbcVocab, merges))->encode("abc"), (Ids{0, 4}));
    EXPECT_EQ(make(bpe_file(kAbcVocab, merges, json::parse(R"({"ignore_merges": true})")))->encode("abc"), (Ids{5}));
}

TEST(HfBpe, UnknownCharactersByteFallbackAndUnk) {
    json vocab = kAbcVocab;
    vocab["<unk>"] = 7;
    vocab["<0xC3>"] = 8;
    vocab["<0xA9>"] = 9;
    // byte_fallback: é is <0xC3><0xA9>; x has no byte piece (<0x78> is missing) so it is <unk>.
    auto t = make(bpe_file(vocab, json::array(), json::parse(R"({"byte_fallback": true, "unk_token": "<unk>"})")));
    EXPECT_EQ(t->encode("a\xC3\xA9x"), (Ids{0, 8, 9, 7}));
    // fuse_unk: a run of unknown characters is one <unk>.
    t = make(bpe_file(vocab, json::array(), json::parse(R"({"unk_token": "<unk>", "fuse_unk": true})")));
    EXPECT_EQ(t->encode("axyzb"), (Ids{0, 7, 1}));
    t = make(bpe_file(vocab, json::array(), json::parse(R"({"unk_token": "<unk>"})")));
    EXPECT_EQ(t->encode("axyb"), (Ids{0, 7, 7, 1}));
    // Neither: the character is dropped, as the Rust library does.
    EXPECT_EQ(make(bpe_file(vocab, json::array()))->encode("axb"), (Ids{0, 1}));
}

TEST(HfBpe, ContinuingSubwordPrefixAndEndOfWordSuffix) {
    const json vocab = json::parse(R"({"a": 0, "##b": 1, "##c": 2, "ab": 4, "c</w>": 5, "b": 6})");
    // A merge joins a and ##b without the prefix.
    auto t = make(bpe_file(vocab, {"a ##b"}, json::parse(R"({"continuing_subword_prefix": "##"})")));
    EXPECT_EQ(t->encode("abc"), (Ids{4, 2}));
    t = make(bpe_file(vocab, json::array(), json::parse(R"({"end_of_word_suffix": "</w>"})")));
    EXPECT_EQ(t->encode("bc"), (Ids{6, 5}));
}

json with_added(json file, std::initializer_list<json> added) {
    file["added_tokens"] = json::array();
    for (const json& t : added) file["added_tokens"].push_back(t);
    return file;
}

json added_token(int id, const std::string& content, bool special, json flags = json::object()) {
    json t = json::parse(R"({"single_word": false, "lstrip": false, "rstrip": false, "normalized": false})");
    t["id"] = id;
    t["content"] = content;
    t["special"] = special;
    t.update(flags);
    return t;
}

TEST(HfAddedTokens, SplitBeforeTheModelLongestFirst) {
    const json vocab = json::parse(R"({"a": 0, "b": 1, " ": 2})");
    auto t = make(with_added(bpe_file(vocab, json::array()),
                             {added_token(10, "<x>", true), added_token(11, "<x>y", false), added_token(12, "ab", false)}));
    EXPECT_EQ(t->encode("a<x>ya<x>"), (Ids{0, 11, 0, 10}));
    EXPECT_EQ(t->encode("aab"), (Ids{0, 12}));
    // Special tokens print nothing in decode() and their text with decode_with_special_tokens().
    EXPECT_EQ(t->decode({0, 10, 11}), "a <x>y");  // no decoder: tokens joined by spaces
    EXPECT_EQ(t->decode_with_special_tokens({0, 10, 11}), "a <x> <x>y");
    EXPECT_TRUE(t->is_control(10));
    EXPECT_FALSE(t->is_control(11));
    EXPECT_EQ(t->piece_to_id("<x>"), 10);
    EXPECT_EQ(t->piece(12), "ab");
}

TEST(HfAddedTokens, LstripRstripAndSingleWord) {
    const json vocab = json::parse(R"({"a": 0, "b": 1, " ": 2})");
    auto t = make(with_added(bpe_file(vocab, json::array()),
                             {added_token(10, "<m>", true, json::parse(R"({"lstrip": true, "rstrip": true})")),
                              added_token(11, "ab", false, json::parse(R"({"single_word": true})"))}));
    EXPECT_EQ(t->encode("a  <m>  b"), (Ids{0, 10, 1}));  // the spaces on both sides go with <m>
    EXPECT_EQ(t->encode("a ab b"), (Ids{0, 2, 11, 2, 1}));
    EXPECT_EQ(t->encode("aab"), (Ids{0, 0, 1}));  // "ab" inside a word is not the added token
    EXPECT_EQ(t->encode("ab_"), (Ids{0, 1}));     // '_' is a word character
}

TEST(HfAddedTokens, NormalizedTokensMatchNormalizedText) {
    json file = with_added(bpe_file(json::parse(R"({"a": 0, "b": 1})"), json::array()),
                           {added_token(10, "AB", false, json::parse(R"({"normalized": true})")), added_token(11, "B", true)});
    file["normalizer"] = json::parse(R"({"type": "Lowercase"})");
    auto t = make(file);
    // "AB" is looked for as "ab" in the lowercased text; "B" (not normalized) in the raw text first.
    EXPECT_EQ(t->encode("aAbB"), (Ids{0, 10, 11}));
    EXPECT_EQ(t->decode_with_special_tokens({10}), "ab");  // decoded in its normalized form
}

TEST(HfAddedTokens, SplitSpecialTokensFromTheConfig) {
    const json file = with_added(bpe_file(json::parse(R"({"<": 0, "x": 1, ">": 2})"), json::array()), {added_token(10, "<x>", true)});
    EXPECT_EQ(make(file)->encode("<x>"), (Ids{10}));
    EXPECT_EQ(make(file, json::parse(R"({"split_special_tokens": true})"))->encode("<x>"), (Ids{0, 1, 2}));
}

TEST(HfPostProcessor, TemplateBertRobertaSequenceAndLlamaClass) {
    json file = with_added(bpe_file(json::parse(R"({"a": 0})"), json::array()),
                           {added_token(1, "<s>", true), added_token(2, "</s>", true)});
    file["post_processor"] = json::parse(R"({"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "</s>", "type_id": 0}}],
        "pair": [],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]},
                           "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}}})");
    EXPECT_EQ(make(file)->encode_with_special_tokens("aa"), (Ids{1, 0, 0, 2}));
    EXPECT_EQ(make(file)->encode("aa"), (Ids{0, 0}));
    file["post_processor"] = json::parse(R"({"type": "RobertaProcessing", "cls": ["<s>", 1], "sep": ["</s>", 2]})");
    EXPECT_EQ(make(file)->encode_with_special_tokens("a"), (Ids{1, 0, 2}));
    file["post_processor"] = json::parse(R"({"type": "Sequence", "processors": [
        {"type": "ByteLevel", "add_prefix_space": false},
        {"type": "BertProcessing", "cls": ["<s>", 1], "sep": ["</s>", 2]}]})");
    EXPECT_EQ(make(file)->encode_with_special_tokens("a"), (Ids{1, 0, 2}));
    // transformers' LlamaTokenizerFast rebuilds the template from add_bos_token / add_eos_token.
    const json llama = json::parse(R"({"tokenizer_class": "LlamaTokenizer", "bos_token": "<s>", "eos_token": "</s>",
                                       "add_bos_token": false, "add_eos_token": true})");
    EXPECT_EQ(make(file, llama)->encode_with_special_tokens("a"), (Ids{0, 2}));
    EXPECT_EQ(make(file, llama)->eos_id(), 2);
}

// The token strings of `tokens` through tokenizer.json's decoder `decoder`.
std::string decode_with(const json& decoder, const std::vector<std::string>& tokens) {
    json file = bpe_file(json::parse(R"({"a": 0})"), json::array());
    file["decoder"] = decoder;
    return make(file)->decode_tokens(tokens);
}

TEST(HfDecoders, ByteLevel) {
    const json d = json::parse(R"({"type": "ByteLevel"})");
    EXPECT_EQ(decode_with(d, {"Hello", "\xC4\xA0world", "\xC4\x8A"}), "Hello world\n");  // Ġ is ' ', Ċ is '\n'
    // Bytes of a character split across tokens join up; a broken sequence is one U+FFFD per maximal part.
    EXPECT_EQ(decode_with(d, {"\xC3\xB0\xC5\x81", "\xC2\xA6", "\xC4\xBB"}), "\xF0\x9F\xA6\x99");  // 🦙
    EXPECT_EQ(decode_with(d, {"\xC3\xB0\xC5\x81", "a"}), "\xEF\xBF\xBD" "a");
    EXPECT_EQ(decode_with(d, {"\xC3\xBF", "\xC3\xBE"}), "\xEF\xBF\xBD\xEF\xBF\xBD");
    // A token outside the byte alphabet (an added token such as "<|x|> 漢") is its own UTF-8.
    EXPECT_EQ(decode_with(d, {"<|x|> \xE6\xBC\xA2"}), "<|x|> \xE6\xBC\xA2");
}

TEST(HfDecoders, MetaspaceDropsTheFirstTokensReplacements) {
    const std::string u = "\xE2\x96\x81";
    const json always = json::parse(R"({"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always"})");
    const json never = json::parse(R"({"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "never"})");
    EXPECT_EQ(decode_with(always, {u + "Hey", u + "friend", u + u + "x"}), "Hey friend  x");
    EXPECT_EQ(decode_with(always, {u + u + "a" + u + "b"}), "ab");
    EXPECT_EQ(decode_with(never, {u + "Hey"}), " Hey");
}

TEST(HfDecoders, ByteFallbackFuseStripReplace) {
    const json fallback = json::parse(R"({"type": "ByteFallback"})");
    EXPECT_EQ(decode_with(fallback, {"a", "<0xC3>", "<0xA9>", "b"}), "a\xC3\xA9" "b");
    // An invalid run is U+FFFD for each of its bytes, valid parts too.
    EXPECT_EQ(decode_with(fallback, {"<0xC3>", "<0xA9>", "<0xA9>"}), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_EQ(decode_with(fallback, {"<0x41>", "<0x4G>"}), "A<0x4G>");
    EXPECT_EQ(decode_with(json::parse(R"({"type": "Strip", "content": " ", "start": 1, "stop": 1})"), {"  a  ", " ", "b "}), " a b");
    EXPECT_EQ(decode_with(json::parse(R"({"type": "Replace", "pattern": {"String": "_"}, "content": " "})"), {"a_b", "_c"}), "a b c");
    // Llama-2's chain: '▁' to ' ', byte pieces, one text, its first space stripped.
    const std::string u = "\xE2\x96\x81";
    const json llama2 = json::parse(R"({"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"},
        {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]})");
    EXPECT_EQ(decode_with(llama2, {u + "Hello", u + "w", "<0xC3>", "<0xB6>", "rld"}), "Hello w\xC3\xB6rld");
    EXPECT_EQ(decode_with(llama2, {"<s>", u + "Hi"}), "<s> Hi");
}

TEST(HfDecoders, CleanUpTokenizationSpaces) {
    EXPECT_EQ(clean_up_tokenization_spaces("Hi , you . I do n't know ' x ' s"), "Hi, you. I don't know'x's");
    // The streaming form gives the same however the text is cut.
    const std::string text = "a , b .c do n't  . ' ' x 're 've  ! ?";
    for (size_t cut = 0; cut <= text.size(); ++cut) {
        CleanUpSpacesStream s;
        std::string out = s.push(text.substr(0, cut));
        out += s.push(text.substr(cut));
        out += s.finish();
        EXPECT_EQ(out, clean_up_tokenization_spaces(text)) << "cut at " << cut;
    }
}

}  // namespace
}  // namespace folio::test
