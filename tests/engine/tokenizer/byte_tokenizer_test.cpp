// The byte tokenizer of dummy models: its vocabulary layout, encode, decode and errors.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/tokenizer/byte_tokenizer.h"

namespace folio {
namespace {

TEST(ByteTokenizer, LayoutLikeLlama) {
    ByteTokenizer tok(32000);
    EXPECT_EQ(tok.vocab_size(), 32000);
    EXPECT_EQ(tok.kind(), "bytes");
    EXPECT_EQ(tok.piece(0), "<unk>");
    EXPECT_EQ(tok.piece(1), "<s>");
    EXPECT_EQ(tok.piece(2), "</s>");
    EXPECT_EQ(tok.piece(3), "<0x00>");
    EXPECT_EQ(tok.piece(3 + 0x41), "<0x41>");
    EXPECT_EQ(tok.piece(258), "<0xFF>");
    EXPECT_EQ(tok.piece(259), "<unused_0>");
    EXPECT_EQ(tok.piece(31999), "<unused_31740>");
    EXPECT_EQ(tok.bos_id(), 1);
    EXPECT_EQ(tok.eos_id(), 2);
    EXPECT_EQ(tok.unk_id(), 0);
    EXPECT_EQ(tok.leading_space_rule(), LeadingSpaceRule::Keep);
    for (int id = 0; id < tok.vocab_size(); ++id) ASSERT_EQ(tok.piece_to_id(tok.piece(id)), id) << id;
    EXPECT_EQ(tok.piece_to_id("<0x4a>"), -1);  // pieces are written in upper case
    EXPECT_EQ(tok.piece_to_id("<unused_01>"), -1);
    EXPECT_EQ(tok.piece_to_id("<unused_31741>"), -1);
    EXPECT_EQ(tok.piece_to_id("hello"), -1);
    EXPECT_TRUE(tok.is_control(0));
    EXPECT_TRUE(tok.is_control(2));
    EXPECT_FALSE(tok.is_control(3));
    EXPECT_FALSE(tok.is_control(258));
    EXPECT_TRUE(tok.is_control(259));
    EXPECT_EQ(tok.token_kind(100), TokenKind::Byte);
    EXPECT_EQ(tok.token_kind(1000), TokenKind::Control);
}

TEST(ByteTokenizer, EncodeIsUtf8BytesAndDecodeInvertsIt) {
    ByteTokenizer tok(259);
    const std::string text = "Hi \xC3\xA9\xF0\x9F\x98\x80 <s>";
    const auto ids = tok.encode(text);
    ASSERT_EQ(ids.size(), text.size());
    EXPECT_EQ(ids[0], 3 + 'H');
    EXPECT_EQ(ids[3], 3 + 0xC3);
    EXPECT_EQ(ids[ids.size() - 2], 3 + 's');  // "<s>" is plain text
    EXPECT_EQ(tok.encode_without_dummy_prefix(text), ids);
    EXPECT_EQ(tok.decode(ids), text);
    EXPECT_EQ(ByteTokenizer(300).decode({1, 3 + 'a', 2, 0, 299}), "a");  // control and unused print nothing
}

TEST(ByteTokenizer, InvalidUtf8BecomesReplacementCharacters) {
    ByteTokenizer tok(259);
    const std::string fffd = "\xEF\xBF\xBD";
    EXPECT_EQ(tok.decode({3 + 0xE2, 3 + 0x82}), fffd + fffd);            // unfinished at the end
    EXPECT_EQ(tok.decode({3 + 0xE2, 2, 3 + 0x82, 3 + 0xAC}), fffd + fffd + fffd);  // split by a control token
    EXPECT_EQ(tok.decode({3 + 0xE2, 3 + 0x82, 3 + 0xAC}), "\xE2\x82\xAC");
    EXPECT_EQ(tok.decode({3 + 0xC0, 3 + 0x80}), fffd + fffd);            // overlong
    EXPECT_EQ(tok.decode({3 + 0xED, 3 + 0xA0, 3 + 0x80}), fffd + fffd + fffd);  // surrogate
    EXPECT_EQ(tok.decode({3 + 0xFF}), fffd);
}

TEST(ByteTokenizer, Errors) {
    EXPECT_THROW(ByteTokenizer(258), Error);
    ByteTokenizer tok(300);
    EXPECT_THROW(tok.decode({300}), Error);
    EXPECT_THROW(tok.token_bytes(-1), Error);
    EXPECT_THROW(tok.piece(300), Error);
    try {
        ByteTokenizer bad(100);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("259"), std::string::npos);
    }
}

}  // namespace
}  // namespace folio
