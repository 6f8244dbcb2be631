// Properties of the tokenizer.json path on seeded random input:
//  - decode(encode(s)) == s (Llama-3.1) and == NFC(s) (Qwen3) for random Unicode text: letters of many
//    scripts, combining marks, emoji with ZWJ and modifiers, digits, white space of every kind;
//  - invalid UTF-8 is read with each maximal invalid subsequence as U+FFFD (the behaviour chosen, as
//    Hugging Face's bindings get such text), never a crash;
//  - any id sequence decodes to valid UTF-8, and the streaming detokenizer gives the same text in
//    pieces that never split a character;
//  - the hand-written GPT-2 / Llama-3 / Qwen matcher cuts text exactly as PCRE2 runs those regexes;
//  - every decoder's streaming stage agrees with its decode_chain.
#include <gtest/gtest.h>

#include <unicode/uchar.h>

#include <random>

#include <nlohmann/json.hpp>

#include "engine/tokenizer/decoder_stages.h"
#include "engine/tokenizer/normalizers.h"
#include "engine/tokenizer/tiktoken_split.h"
#include "engine/tokenizer/unicode_text.h"
#include "tests/engine/tokenizer/hf_tokenizer_test_util.h"

namespace folio::test {
namespace {

// Seeded random text from pieces that stress a tokenizer.
class RandomText {
public:
    explicit RandomText(uint64_t seed) : rng_(seed) {}

    std::string make(size_t max_chars) {
        std::string s;
        const size_t n = pick(max_chars + 1);
        for (size_t i = 0; i < n; ++i) add_piece(s);
        return s;
    }

    // Random code points of Unicode 14 or earlier (PCRE2 10.42's tables), from every plane in use.
    std::string any_assigned(size_t n) {
        std::string s;
        while (n > 0) {
            const char32_t c = char32_t(pick(4) == 0 ? pick(0x30000) : pick(0x3000));
            if (c >= 0xD800 && c <= 0xDFFF) continue;
            UVersionInfo age;
            u_charAge(UChar32(c), age);
            if (u_charType(UChar32(c)) == U_UNASSIGNED || age[0] > 14) continue;
            unicode::append_utf8(s, c);
            --n;
        }
        return s;
    }

    size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

private:
    void add_piece(std::string& s) {
        static const char* kPieces[] = {
            "the", " quick", "Brown", " fox", "'s", "'LL", " n't", "don\xE2\x80\x99t", "HTTP", "x", " ", "  ", "   ",
            "\t", "\n", "\r\n", "\n\n", "\xC2\xA0", "\xE3\x80\x80", "\xE2\x80\x83", "\xC2\x85", "0", "12", "1234567",
            "3.14", "-", ".", ",", "!?", "...", "()", "{}", "<", ">", "<|", "|>", "#", "@", "_", "\\", "\"",
            "caf\xC3\xA9", "cafe\xCC\x81", "e\xCC\x81\xCC\x81", "\xC3\xB1", "\xCE\xA9\xCE\xB1", "\xD0\x9F\xD1\x80\xD0\xB8",
            "\xD8\xB9\xD8\xB1\xD8\xA8", "\xD7\xA2\xD7\x91", "\xE0\xA4\xB9\xE0\xA4\xBF\xE0\xA4\x82", "\xE0\xB8\xA0\xE0\xB8\xB2",
            "\xED\x95\x9C\xEA\xB5\xAD", "\xE6\x97\xA5\xE6\x9C\xAC", "\xE3\x81\xAE", "\xE4\xB8\xAD\xE6\x96\x87",
            "\xF0\x9F\xA6\x99", "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD", "\xF0\x9F\x87\xAB\xF0\x9F\x87\xB7",
            "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB", "\xE2\x88\x91", "\xC2\xB2", "\xE2\x85\xA7", "\xEF\xAC\x81",
            "\xE2\x80\x8B", "\xEF\xBB\xBF", "\xF0\x90\x8D\x88", "\xCC\x81",
        };
        if (pick(8) == 0) {
            s += any_assigned(1 + pick(3));
            return;
        }
        s += kPieces[pick(std::size(kPieces))];
    }

    std::mt19937_64 rng_;
};

std::shared_ptr<const HfTokenizer> without_config(const char* name) {
    // No tokenizer_config.json: no clean_up_tokenization_spaces, so decode is the exact inverse.
    const std::string path = fixture_path(std::string("tokenizers/") + name + "/tokenizer.json");
    return parse_tokenizer_json(read_file(path), std::nullopt, path);
}

void expect_valid_utf8(const std::string& s) { EXPECT_EQ(unicode::first_invalid_byte(s), s.size()) << s; }

void expect_stream_matches(const Tokenizer& tok, const std::vector<int>& ids) {
    std::string joined;
    for (const auto& p : hf_stream_pieces(tok, ids)) {
        expect_valid_utf8(p);
        joined += p;
    }
    EXPECT_EQ(joined, tok.decode(ids));
}

TEST(HfTokenizerProperties, RandomUnicodeRoundTrips) {
    const auto llama = without_config("llama3_1");
    const auto qwen = without_config("qwen3");
    const auto nfc = make_unicode_normalizer(UnicodeForm::NFC);
    RandomText gen(20261203);
    for (int i = 0; i < 300; ++i) {
        const std::string s = gen.make(40);
        SCOPED_TRACE(s);
        const auto ids = llama->encode(s);
        EXPECT_EQ(llama->decode_with_special_tokens(ids), s);
        expect_stream_matches(*llama, ids);
        std::string normalized = s;
        nfc->normalize(normalized);
        const auto qids = qwen->encode(s);
        EXPECT_EQ(qwen->decode_with_special_tokens(qids), normalized);
        expect_stream_matches(*qwen, qids);
    }
}

TEST(HfTokenizerProperties, InvalidUtf8ReadsAsReplacementCharacters) {
    const auto llama = llama3_tokenizer();
    std::mt19937_64 rng(7);
    for (int i = 0; i < 300; ++i) {
        std::string bytes;
        const size_t n = rng() % 24;
        for (size_t k = 0; k < n; ++k) bytes.push_back(rng() % 3 == 0 ? char(rng() % 128) : char(0x80 + rng() % 128));
        const std::string repaired = unicode::to_valid_utf8(bytes);
        const auto ids = llama->encode(bytes);
        EXPECT_EQ(ids, llama->encode(repaired));
        EXPECT_EQ(llama->decode(ids), repaired);
    }
    // One U+FFFD per maximal invalid subsequence: E2 82 is one (a cut-off euro sign), FF is one.
    EXPECT_EQ(unicode::to_valid_utf8("a\xE2\x82" "b\xFF"), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");
    EXPECT_EQ(unicode::to_valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate: 3
}

TEST(HfTokenizerProperties, RandomIdsDecodeToValidUtf8AndStreamTheSame) {
    for (const auto& tok : {llama3_tokenizer(), qwen3_tokenizer()}) {
        std::mt19937_64 rng(99);
        for (int i = 0; i < 200; ++i) {
            std::vector<int> ids;
            const size_t n = rng() % 20;
            for (size_t k = 0; k < n; ++k) {
                // Mostly the 256 single-byte tokens and the added tokens, to break characters apart.
                const int r = int(rng() % 4);
                ids.push_back(r == 0 ? int(rng() % tok->vocab_size()) : r == 1 ? int(tok->vocab_size() - 1 - rng() % 30)
                                                                                : int(rng() % 256));
            }
            expect_valid_utf8(tok->decode(ids));
            expect_valid_utf8(tok->decode_with_special_tokens(ids));
            expect_stream_matches(*tok, ids);
        }
    }
}

struct Segments final : SegmentSink {
    std::vector<std::tuple<size_t, size_t, bool>> all;
    void segment(size_t start, size_t end, bool is_match) override { all.emplace_back(start, end, is_match); }
};

TEST(HfTokenizerProperties, FastMatcherAgreesWithPcre2) {
    RandomText gen(4242);
    for (std::string_view pattern : {kGpt2Pattern, kLlama3Pattern, kQwen2Pattern}) {
        const auto fast = make_tiktoken_split(std::string(pattern));
        const auto pcre2 = make_pcre2_pattern(std::string(pattern));
        ASSERT_TRUE(fast);
        for (int i = 0; i < 600; ++i) {
            const std::string s = i % 3 == 0 ? gen.any_assigned(1 + gen.pick(30)) : gen.make(30);
            Segments a, b;
            fast->find_segments(s, a);
            pcre2->find_segments(s, b);
            EXPECT_EQ(a.all, b.all) << pattern << " on \"" << s << "\"";
        }
    }
}

// Streaming stages against decode_chain, for decoder chains as real files write them.
TEST(HfTokenizerProperties, StreamingDecodersAgreeWithDecodeChain) {
    using nlohmann::json;
    const char* chains[] = {
        R"({"type": "ByteLevel"})",
        R"({"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]})",
        R"({"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always"})",
        R"({"type": "Sequence", "decoders": [{"type": "Strip", "content": "\u2581", "start": 2, "stop": 2}, {"type": "ByteFallback"}]})",
        R"({"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "Strip", "content": "\u2581", "start": 1, "stop": 2},
            {"type": "Replace", "pattern": {"Regex": "a+"}, "content": "A"}]})",
        R"({"type": "Sequence", "decoders": [{"type": "ByteFallback"}, {"type": "Metaspace", "replacement": "\u2581",
            "prepend_scheme": "first"}, {"type": "Fuse"}]})",
        "",  // no decoder: tokens joined by spaces
    };
    // Tokens that exercise them: words with '▁', byte pieces (valid and broken runs), byte-level text.
    std::vector<std::string> vocab = {"\xE2\x96\x81", "\xE2\x96\x81\xE2\x96\x81", "a", "aa", "\xE2\x96\x81" "a", "b\xE2\x96\x81",
                                      "<0xC3>", "<0xA9>", "<0xF0>", "<0x9F>", "<0x41>", "\xC3\xB0\xC5\x81", "\xC2\xA6",
                                      "\xC4\xBB", "\xC4\xA0x", " ", ".", "n't", "\xC3\xBF"};
    json v = json::object();
    for (size_t i = 0; i < vocab.size(); ++i) v[vocab[i]] = i;
    for (const char* chain : chains) {
        for (bool cleanup : {false, true}) {
            json file = {{"model", {{"type", "BPE"}, {"vocab", v}, {"merges", json::array()}}}};
            if (*chain) file["decoder"] = json::parse(chain);
            const auto tok = parse_tokenizer_json(file.dump(), json{{"clean_up_tokenization_spaces", cleanup}}.dump(), "t");
            std::mt19937_64 rng(5);
            for (int i = 0; i < 300; ++i) {
                std::vector<int> ids;
                const size_t n = rng() % 12;
                for (size_t k = 0; k < n; ++k) ids.push_back(int(rng() % vocab.size()));
                SCOPED_TRACE(std::string(chain) + (cleanup ? " +cleanup" : ""));
                expect_stream_matches(*tok, ids);
            }
        }
    }
}

}  // namespace
}  // namespace folio::test
