// Every vector of tests/fixtures/tokenizers/{llama3_1,qwen3,mistral7b}/vectors.json (ids from
// @huggingface/tokenizers and @lenml/tokenizers, which agree, and the Rust library): ids without and
// with special tokens, the decoded text (special tokens kept, clean_up_tokenization_spaces as the
// config says), and the streaming detokenizer on each.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/tokenizer/unicode_text.h"
#include "tests/engine/tokenizer/hf_tokenizer_test_util.h"

namespace folio::test {
namespace {

void check_vectors(const char* name, const HfTokenizer& tok) {
    const auto j = nlohmann::json::parse(read_file(fixture_path(std::string("tokenizers/") + name + "/vectors.json")));
    const auto& cases = j.at("cases");
    ASSERT_GE(cases.size(), 40u);
    for (const auto& c : cases) {
        const std::string text = c.at("text");
        SCOPED_TRACE(std::string(name) + ": \"" + text + "\"");
        const auto ids = c.at("ids").get<std::vector<int>>();
        EXPECT_EQ(tok.encode(text), ids);
        EXPECT_EQ(tok.encode_with_special_tokens(text), c.at("ids_with_special").get<std::vector<int>>());
        const std::string decoded = c.at("decoded");
        EXPECT_EQ(tok.decode_with_special_tokens(ids), decoded);

        // Streaming gives decode() (special tokens skipped) in pieces of whole characters.
        std::string joined;
        for (const auto& p : hf_stream_pieces(tok, ids)) {
            EXPECT_EQ(unicode::first_invalid_byte(p), p.size()) << "a broken character in a streamed piece";
            joined += p;
        }
        EXPECT_EQ(joined, tok.decode(ids));
    }
}

TEST(HfTokenizerVectors, Llama31) { check_vectors("llama3_1", *llama3_tokenizer()); }
TEST(HfTokenizerVectors, Qwen3) { check_vectors("qwen3", *qwen3_tokenizer()); }
// Prepend + Replace normalizer, no pre-tokenizer (each text is one word), byte fallback, fuse_unk,
// the Replace/ByteFallback/Fuse/Strip decoder chain, LlamaTokenizer's rebuilt template.
TEST(HfTokenizerVectors, SentencepieceConvertedMistral7b) { check_vectors("mistral7b", *mistral7b_tokenizer()); }

}  // namespace
}  // namespace folio::test
