// Every vector of tests/fixtures/tokenizers (made with python sentencepiece 0.1.97): ids, pieces, decoded
// text, and the streaming detokenizer on each.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/tokenizer/utf8.h"
#include "tests/engine/tokenizer/tokenizer_test_util.h"

namespace folio::test {
namespace {

void check_vectors(const char* name, const Tokenizer& tok) {
    const auto j = nlohmann::json::parse(read_file(fixture_path(std::string("tokenizers/") + name + "/vectors.json")));
    ASSERT_EQ(j["pieces"].get<int>(), tok.vocab_size());
    const auto& vectors = j["vectors"];
    ASSERT_GE(vectors.size(), 40u);
    for (const auto& v : vectors) {
        const std::string text = v["text"];
        SCOPED_TRACE(std::string(name) + ": \"" + text + "\"");
        const auto ids = v["ids"].get<std::vector<int>>();
        EXPECT_EQ(tok.encode(text), ids);
        const auto pieces = v["pieces"].get<std::vector<std::string>>();
        ASSERT_EQ(pieces.size(), ids.size());
        for (size_t i = 0; i < ids.size(); ++i) {
            EXPECT_EQ(tok.piece(ids[i]), pieces[i]);
            EXPECT_EQ(tok.piece_to_id(pieces[i]), ids[i]);
        }
        const std::string decoded = v["decoded"];
        EXPECT_EQ(tok.decode(ids), decoded);
        EXPECT_EQ(v["roundtrip"].get<bool>(), decoded == text);
        // Streaming: the same text, never half a character per step.
        const auto parts = stream_pieces(tok, ids);
        std::string joined;
        for (const auto& p : parts) {
            EXPECT_TRUE(utf8::is_valid(p));
            joined += p;
        }
        EXPECT_EQ(joined, decoded);
    }
}

TEST(TokenizerVectors, Llama2) {
    auto tok = llama2_tokenizer();
    EXPECT_EQ(tok->kind(), "sentencepiece");
    EXPECT_EQ(tok->bos_id(), 1);
    EXPECT_EQ(tok->eos_id(), 2);
    EXPECT_EQ(tok->unk_id(), 0);
    EXPECT_EQ(tok->leading_space_rule(), LeadingSpaceRule::DropFirst);
    check_vectors("llama2", *tok);
}

TEST(TokenizerVectors, Tok512) {
    auto tok = tok512_tokenizer();
    // tok512 was trained with remove_extra_whitespaces: every leading space goes.
    EXPECT_EQ(tok->leading_space_rule(), LeadingSpaceRule::DropWhileEmpty);
    check_vectors("tok512", *tok);
}

TEST(TokenizerVectors, TokenTables) {
    auto tok = llama2_tokenizer();
    EXPECT_EQ(tok->token_kind(0), TokenKind::Unknown);
    EXPECT_EQ(tok->token_kind(1), TokenKind::Control);
    EXPECT_EQ(tok->token_kind(2), TokenKind::Control);
    EXPECT_EQ(tok->token_kind(13), TokenKind::Byte);  // <0x0A>
    EXPECT_EQ(tok->token_bytes(13), "\n");
    EXPECT_EQ(tok->token_kind(15043), TokenKind::Text);
    EXPECT_EQ(tok->token_bytes(15043), " Hello");
    EXPECT_EQ(tok->token_bytes(2), "");
    EXPECT_EQ(tok->token_bytes(0), " \xE2\x81\x87 ");  // " ⁇ ", the library's unknown surface
    EXPECT_TRUE(tok->is_control(1));
    EXPECT_FALSE(tok->is_control(0));
    EXPECT_FALSE(tok->is_control(15043));
    EXPECT_EQ(tok->piece_to_id("<unk>"), 0);
    EXPECT_EQ(tok->piece_to_id("no such piece"), -1);
    EXPECT_EQ(tok->special_token_ids(), (std::vector<int>{0, 1, 2}));
    EXPECT_THROW(tok->token_bytes(32000), Error);
    EXPECT_THROW(tok->token_kind(-1), Error);
    EXPECT_THROW(tok->decode({15043, 32000}), Error);
}

}  // namespace
}  // namespace folio::test
