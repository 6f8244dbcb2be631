// The streaming detokenizer against the batch decode: on hand-made cases whose output per step is
// known, and on many random id sequences rich in byte pieces, control tokens and leading spaces.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "engine/tokenizer/byte_tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "tests/engine/tokenizer/tokenizer_test_util.h"

namespace folio::test {
namespace {

using Parts = std::vector<std::string>;
const std::string kFffd = "\xEF\xBF\xBD";

// Byte piece id of a byte in a sentencepiece model with byte fallback.
int byte_id(const Tokenizer& tok, uint8_t b) {
    static const char* hex = "0123456789ABCDEF";
    return tok.piece_to_id(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">");
}

TEST(StreamingDetokenizer, HoldsASplitCharacterUntilItIsComplete) {
    const auto& tok = *llama2_tokenizer();
    // "€" = E2 82 AC as three byte pieces.
    const std::vector<int> euro = {byte_id(tok, 0xE2), byte_id(tok, 0x82), byte_id(tok, 0xAC)};
    EXPECT_EQ(stream_pieces(tok, euro), (Parts{"", "", "\xE2\x82\xAC", ""}));
    // "😀" = F0 9F 98 80, then " Hello".
    std::vector<int> emoji = {byte_id(tok, 0xF0), byte_id(tok, 0x9F), byte_id(tok, 0x98), byte_id(tok, 0x80), 15043};
    EXPECT_EQ(stream_pieces(tok, emoji), (Parts{"", "", "", "\xF0\x9F\x98\x80", " Hello", ""}));
    EXPECT_EQ(tok.decode(emoji), "\xF0\x9F\x98\x80 Hello");
}

// A model whose UNKNOWN piece is not the piece trainer_spec.unk_piece ("<unk>") names: the library's
// unk_id() is -1 then, yet its decode prints the unknown surface " ⁇ " for that piece, so the stream
// must too. Found by the sentencepiece_model fuzz target (its seed regression-unknown-piece-type).
TEST(StreamingDetokenizer, UnknownPieceThatTrainerSpecDoesNotName) {
    // ModelProto.pieces (field 1): piece (1), score (2, float 0), type (3: 1 normal, 2 unknown).
    auto piece = [](const std::string& text, char type) {
        const std::string m = "\x0a" + std::string(1, char(text.size())) + text + std::string("\x15\0\0\0\0", 5) + "\x18" + type;
        return "\x0a" + std::string(1, char(m.size())) + m;
    };
    const std::string model = piece("<u~k>", 2) + piece("<unk>", 1) + piece("a", 1) + piece("\xE2\x96\x81", 1);
    const auto tok = SentencePieceTokenizer::load_serialized(model, "unk-test/tokenizer.model");
    EXPECT_EQ(tok->token_kind(0), TokenKind::Unknown);
    const std::vector<int> ids = tok->encode("a?a");
    ASSERT_NE(std::find(ids.begin(), ids.end(), 0), ids.end()) << "'?' should be the unknown piece";
    EXPECT_EQ(tok->token_bytes(0), " \xE2\x81\x87 ");
    EXPECT_EQ(stream_all(*tok, ids), tok->decode(ids));
}

TEST(StreamingDetokenizer, ReplacementCharactersWhereTheBatchDecodePutsThem) {
    const auto& tok = *llama2_tokenizer();
    const int e2 = byte_id(tok, 0xE2), x82 = byte_id(tok, 0x82), xac = byte_id(tok, 0xAC);
    // A control token ends the run: the unfinished E2 is invalid there, and so are the trail bytes.
    const std::vector<int> broken = {e2, 2, x82, xac};
    EXPECT_EQ(stream_pieces(tok, broken), (Parts{"", kFffd, kFffd, kFffd, ""}));
    EXPECT_EQ(tok.decode(broken), kFffd + kFffd + kFffd);
    // A text token ends it too.
    EXPECT_EQ(stream_pieces(tok, {e2, x82, 15043}), (Parts{"", "", kFffd + kFffd + " Hello", ""}));
    // At the very end, finish() gives what is still held.
    EXPECT_EQ(stream_pieces(tok, {15043, e2}), (Parts{"Hello", "", kFffd}));
    // A byte that can never begin a character is replaced at once; an overlong start as well.
    EXPECT_EQ(stream_pieces(tok, {x82}), (Parts{kFffd, ""}));
    EXPECT_EQ(stream_pieces(tok, {byte_id(tok, 0xE0), x82}), (Parts{"", kFffd + kFffd, ""}));
    EXPECT_EQ(tok.decode({byte_id(tok, 0xE0), x82}), kFffd + kFffd);
}

TEST(StreamingDetokenizer, LeadingSpaceRuleOfSentencepiece) {
    const auto& tok = *llama2_tokenizer();
    const int hello = 15043, space = 29871, two_spaces = 259;
    EXPECT_EQ(stream_pieces(tok, {hello, hello}), (Parts{"Hello", " Hello", ""}));
    EXPECT_EQ(stream_pieces(tok, {1, hello}), (Parts{"", "Hello", ""}));  // BOS prints nothing
    EXPECT_EQ(stream_pieces(tok, {space, hello}), (Parts{"", " Hello", ""}));  // only one space is dropped
    EXPECT_EQ(stream_pieces(tok, {two_spaces, hello}), (Parts{" ", " Hello", ""}));
    EXPECT_EQ(stream_pieces(tok, {byte_id(tok, ' '), hello}), (Parts{" ", " Hello", ""}));  // bytes keep it
    EXPECT_EQ(stream_pieces(tok, {0, hello}), (Parts{" \xE2\x81\x87 ", " Hello", ""}));     // so does <unk>
    for (const auto& ids : std::vector<std::vector<int>>{{space, hello}, {two_spaces, hello}, {0, hello}, {2, 1, space, 2, hello}})
        EXPECT_EQ(stream_all(tok, ids), tok.decode(ids));

    // remove_extra_whitespaces (tok512): leading spaces go while nothing is printed.
    const auto& t512 = *tok512_tokenizer();
    const int s = t512.piece_to_id("\xE2\x96\x81"), a = t512.piece_to_id("\xE2\x96\x81" "a");
    ASSERT_GE(s, 0);
    ASSERT_GE(a, 0);
    EXPECT_EQ(stream_pieces(t512, {s, s, a, a}), (Parts{"", "", "a", " a", ""}));
    EXPECT_EQ(t512.decode({s, s, a, a}), "a a");
}

// Random sequences: mostly byte pieces (valid characters split into bytes, and stray bytes), with
// control tokens, <unk>, leading-space pieces and ordinary pieces mixed in.
std::vector<int> random_ids(const Tokenizer& tok, std::mt19937& rng) {
    static const std::vector<std::string> chars = {"a", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xE6\x97\xA5",
                                                   "\xED\x9F\xBF", "\xF4\x8F\xBF\xBF", " ", "\n"};
    std::vector<int> ids;
    const int n = int(rng() % 24);
    std::vector<int> specials = tok.special_token_ids();
    while (int(ids.size()) < n) {
        switch (rng() % 8) {
            case 0: case 1: {  // a whole character as byte pieces
                for (unsigned char c : chars[rng() % chars.size()]) ids.push_back(byte_id(tok, c));
                break;
            }
            case 2: ids.push_back(byte_id(tok, uint8_t(rng() % 256))); break;  // any byte
            case 3: ids.push_back(specials[rng() % specials.size()]); break;
            case 4: {  // the lone '▁' piece where there is one
                const int space = tok.piece_to_id("\xE2\x96\x81");
                ids.push_back(space >= 0 ? space : int(rng() % uint32_t(tok.vocab_size())));
                break;
            }
            default: ids.push_back(int(rng() % uint32_t(tok.vocab_size()))); break;
        }
    }
    return ids;
}

void check_random(const Tokenizer& tok, uint32_t seed, int count) {
    std::mt19937 rng(seed);
    for (int i = 0; i < count; ++i) {
        const auto ids = random_ids(tok, rng);
        const auto parts = stream_pieces(tok, ids);
        std::string joined;
        for (const auto& p : parts) {
            ASSERT_TRUE(utf8::is_valid(p)) << "sequence " << i;
            joined += p;
        }
        ASSERT_EQ(joined, tok.decode(ids)) << "sequence " << i << " of seed " << seed;
    }
}

TEST(StreamingDetokenizer, RandomSequencesLlama2) { check_random(*llama2_tokenizer(), 1, 3000); }
TEST(StreamingDetokenizer, RandomSequencesTok512) { check_random(*tok512_tokenizer(), 2, 3000); }

TEST(StreamingDetokenizer, RandomSequencesByteTokenizer) {
    ByteTokenizer tok(300);
    check_random(tok, 3, 3000);
    // Its unused ids print nothing and end a run of bytes, like control tokens.
    EXPECT_EQ(stream_pieces(tok, {3 + 0xE2, 299, 3 + 'a'}), (Parts{"", kFffd, "a", ""}));
}

TEST(StreamingDetokenizer, ContinuingTextKeepsTheLeadingSpace) {
    const auto& tok = *llama2_tokenizer();
    // A fork after "The": its tokens continue a text, so " quick" keeps its space.
    StreamingDetokenizer fresh(tok), cont(tok, /*continues_text=*/true);
    EXPECT_EQ(fresh.push(4996), "quick");
    EXPECT_EQ(cont.push(4996), " quick");
    std::mt19937 rng(4);
    for (int i = 0; i < 500; ++i) {
        const auto before = random_ids(tok, rng), after = random_ids(tok, rng);
        const std::string head = tok.decode(before);
        if (head.empty() || head.size() < 3 || head.compare(head.size() - 3, 3, kFffd) == 0) continue;
        std::vector<int> all = before;
        all.insert(all.end(), after.begin(), after.end());
        const std::string whole = tok.decode(all);
        if (whole.compare(0, head.size(), head) != 0) continue;  // the head ended inside a character
        StreamingDetokenizer d(tok, true);
        std::string tail;
        for (int id : after) tail += d.push(id);
        tail += d.finish();
        ASSERT_EQ(head + tail, whole) << "sequence " << i;
    }
}

TEST(StreamingDetokenizer, RejectsIdsOutsideTheVocabulary) {
    StreamingDetokenizer d(*llama2_tokenizer());
    EXPECT_THROW(d.push(32000), Error);
    EXPECT_THROW(d.push(-5), Error);
}

}  // namespace
}  // namespace folio::test
