// tokenizer_config.json variants (and the files that complete it), and the errors of loading.
#include <gtest/gtest.h>

#include <functional>

#include "engine/core/error.h"
#include "engine/tokenizer/tokenizer_config.h"
#include "engine/tokenizer/tokenizer_loader.h"
#include "tests/engine/tokenizer/tokenizer_test_util.h"

namespace folio::test {
namespace {

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(TokenizerConfig, MissingFileGivesDefaults) {
    TempDir dir;
    const TokenizerConfig c = load_tokenizer_config(dir.path());
    EXPECT_TRUE(c.add_bos_token);
    EXPECT_FALSE(c.add_eos_token);
    EXPECT_EQ(c.bos_token, "<s>");
    EXPECT_EQ(c.eos_token, "</s>");
    EXPECT_EQ(c.unk_token, "<unk>");
    EXPECT_FALSE(c.chat_template.has_value());
    EXPECT_EQ(c.model_max_length, 0);
    EXPECT_TRUE(c.legacy);
    EXPECT_TRUE(c.add_prefix_space);
    EXPECT_TRUE(c.added_tokens.empty());
}

TEST(TokenizerConfig, FixtureModel) {
    const TokenizerConfig c = load_tokenizer_config(fixture_path("models/stories260K"));
    EXPECT_TRUE(c.add_bos_token);
    EXPECT_FALSE(c.add_eos_token);
    EXPECT_EQ(c.model_max_length, 512);
    EXPECT_TRUE(c.legacy);
    // Given the tokenizer.model file instead of the folder: the folder beside it.
    EXPECT_EQ(load_tokenizer_config(fixture_path("models/tiny-awq/tokenizer.model")).model_max_length, 2048);
}

TEST(TokenizerConfig, TokensAsObjectsTemplateListsAndHugeLengths) {
    TempDir dir;
    write_file(dir.file("tokenizer_config.json"), R"({
      "add_bos_token": false, "add_eos_token": true,
      "bos_token": {"__type": "AddedToken", "content": "<|begin|>", "lstrip": false},
      "eos_token": "<|end|>", "unk_token": null,
      "chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}],
      "model_max_length": 1000000000000000019884624838656,
      "legacy": false, "add_prefix_space": false,
      "added_tokens_decoder": {
        "0": {"content": "<unk>", "lstrip": false, "rstrip": false, "special": true},
        "32000": {"content": "<|im_start|>", "lstrip": true, "rstrip": true, "normalized": false}
      }
    })");
    const TokenizerConfig c = load_tokenizer_config(dir.path());
    EXPECT_FALSE(c.add_bos_token);
    EXPECT_TRUE(c.add_eos_token);
    EXPECT_EQ(c.bos_token, "<|begin|>");
    EXPECT_EQ(c.eos_token, "<|end|>");
    EXPECT_EQ(c.unk_token, "");  // null: the model has none
    EXPECT_EQ(c.chat_template.value_or(""), "D");
    EXPECT_EQ(c.model_max_length, 0);
    EXPECT_FALSE(c.legacy);
    EXPECT_FALSE(c.add_prefix_space);
    ASSERT_EQ(c.added_tokens.size(), 2u);
    EXPECT_EQ(c.added_tokens[1].id, 32000);
    EXPECT_EQ(c.added_tokens[1].content, "<|im_start|>");
    EXPECT_TRUE(c.added_tokens[1].lstrip);
    EXPECT_TRUE(c.added_tokens[1].rstrip);
    EXPECT_TRUE(c.added_tokens[1].special);
}

TEST(TokenizerConfig, TemplateStringNullAndOtherLengths) {
    TempDir dir;
    write_file(dir.file("tokenizer_config.json"),
               R"({"chat_template": "{{ bos_token }}", "model_max_length": 4096.0, "legacy": null})");
    TokenizerConfig c = load_tokenizer_config(dir.path());
    EXPECT_EQ(c.chat_template.value_or(""), "{{ bos_token }}");
    EXPECT_EQ(c.model_max_length, 4096);
    EXPECT_TRUE(c.legacy);  // null: transformers' default

    write_file(dir.file("tokenizer_config.json"), R"({"chat_template": [{"name": "rag", "template": "R"}], "model_max_length": -1})");
    c = load_tokenizer_config(dir.path());
    EXPECT_FALSE(c.chat_template.has_value());  // no "default" among the named templates
    EXPECT_EQ(c.model_max_length, 0);
}

TEST(TokenizerConfig, SpecialTokensMapAndSeparateTemplateFiles) {
    TempDir dir;
    // special_tokens_map.json alone names the tokens; chat_template.jinja holds the template.
    write_file(dir.file("special_tokens_map.json"), R"({"bos_token": {"content": "<B>"}, "eos_token": "<E>"})");
    write_file(dir.file("chat_template.jinja"), "{% for m in messages %}{{ m.content }}{% endfor %}");
    TokenizerConfig c = load_tokenizer_config(dir.path());
    EXPECT_EQ(c.bos_token, "<B>");
    EXPECT_EQ(c.eos_token, "<E>");
    EXPECT_EQ(c.chat_template.value_or(""), "{% for m in messages %}{{ m.content }}{% endfor %}");

    // tokenizer_config.json wins over the map; chat_template.json is read when there is no .jinja.
    TempDir dir2;
    write_file(dir2.file("special_tokens_map.json"), R"({"eos_token": "<E>"})");
    write_file(dir2.file("tokenizer_config.json"), R"({"eos_token": "<|eot|>"})");
    write_file(dir2.file("chat_template.json"), R"({"chat_template": "J"})");
    c = load_tokenizer_config(dir2.path());
    EXPECT_EQ(c.eos_token, "<|eot|>");
    EXPECT_EQ(c.chat_template.value_or(""), "J");
}

TEST(TokenizerConfig, CorruptJsonNamesTheFile) {
    TempDir dir;
    write_file(dir.file("tokenizer_config.json"), R"({"add_bos_token": true,)");
    std::string msg = error_of([&] { load_tokenizer_config(dir.path()); });
    EXPECT_NE(msg.find(dir.file("tokenizer_config.json")), std::string::npos) << msg;
    EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;

    write_file(dir.file("tokenizer_config.json"), "[1, 2]");
    msg = error_of([&] { load_tokenizer_config(dir.path()); });
    EXPECT_NE(msg.find("must hold a JSON object"), std::string::npos) << msg;

    write_file(dir.file("tokenizer_config.json"), R"({"add_bos_token": "yes"})");
    msg = error_of([&] { load_tokenizer_config(dir.path()); });
    EXPECT_NE(msg.find("\"add_bos_token\" must be true or false"), std::string::npos) << msg;

    write_file(dir.file("tokenizer_config.json"), R"({"bos_token": 7})");
    msg = error_of([&] { load_tokenizer_config(dir.path()); });
    EXPECT_NE(msg.find("\"bos_token\""), std::string::npos) << msg;

    write_file(dir.file("tokenizer_config.json"), R"({"chat_template": 3})");
    EXPECT_NE(error_of([&] { load_tokenizer_config(dir.path()); }).find("chat_template"), std::string::npos);

    write_file(dir.file("tokenizer_config.json"), R"({"model_max_length": "big"})");
    EXPECT_NE(error_of([&] { load_tokenizer_config(dir.path()); }).find("model_max_length"), std::string::npos);

    write_file(dir.file("tokenizer_config.json"), R"({"added_tokens_decoder": {"x": {"content": "a"}}})");
    EXPECT_NE(error_of([&] { load_tokenizer_config(dir.path()); }).find("not a token id"), std::string::npos);

    write_file(dir.file("tokenizer_config.json"), "{}");
    write_file(dir.file("special_tokens_map.json"), "{oops");
    msg = error_of([&] { load_tokenizer_config(dir.path()); });
    EXPECT_NE(msg.find(dir.file("special_tokens_map.json")), std::string::npos) << msg;
}

TEST(TokenizerLoading, FolderOrFile) {
    auto a = load_tokenizer(fixture_path("tokenizers/llama2"));
    auto b = load_tokenizer(fixture_path("tokenizers/llama2/tokenizer.model"));
    EXPECT_EQ(a->vocab_size(), 32000);
    EXPECT_EQ(b->encode("Hello world"), (std::vector<int>{15043, 3186}));
}

TEST(TokenizerLoading, MissingTokenizerNamesThePath) {
    TempDir dir;
    std::string msg = error_of([&] { load_tokenizer(dir.path()); });
    EXPECT_NE(msg.find("no tokenizer.json or tokenizer.model in " + dir.path()), std::string::npos) << msg;
    msg = error_of([&] { load_tokenizer(dir.file("nothing.model")); });
    EXPECT_NE(msg.find(dir.file("nothing.model")), std::string::npos) << msg;
    msg = error_of([&] { SentencePieceTokenizer::load(dir.file("tokenizer.model")); });
    EXPECT_NE(msg.find(dir.file("tokenizer.model") + " does not exist"), std::string::npos) << msg;
    write_file(dir.file("tokenizer.json"), "{}");
    msg = error_of([&] { load_tokenizer(dir.path()); });
    EXPECT_NE(msg.find("tokenizer.json"), std::string::npos) << msg;
}

TEST(TokenizerLoading, CorruptModelNamesTheFile) {
    TempDir dir;
    const std::string path = dir.file("tokenizer.model");
    const std::string good = read_file(fixture_path("tokenizers/llama2/tokenizer.model"));
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"empty", ""},
        {"text", "this is not a sentencepiece model\n"},
        {"json", R"({"model": {"type": "BPE"}})"},
        {"truncated", good.substr(0, good.size() / 2)},
        {"truncated at the end", good.substr(0, good.size() - 3)},
        {"zeros", std::string(4096, '\0')},
        {"random", [] {
             std::string s;
             uint32_t x = 12345;
             for (int i = 0; i < 5000; ++i) s.push_back(char((x = x * 1103515245u + 12345u) >> 24));
             return s;
         }()},
        // Found by the sentencepiece_model fuzz target: the library aborts the process on a piece
        // whose text starts with a NUL byte (an empty key of its trie); ours refuses it first.
        {"piece with a NUL byte", std::string("\x0a\x09\x0a\x05<unk>\x18\x02" "\x0a\x04\x0a\x02\x00\x31", 17) +
                                      std::string("\x0a\x05\x0a\x03" "abc")},
        // Found by the sentencepiece_model fuzz target: "▁" as a control piece (here Llama-2's "<s>"
        // renamed, and its normal "▁" piece renamed away) loads, but the library's encoder then
        // fails its own check on ordinary text; refused at load by an encoding probe.
        {"control piece for the space", [&] {
             std::string m = good;
             const std::string space_piece = std::string("\x0a\x03\xE2\x96\x81\x15", 6);
             m.replace(m.find(space_piece), space_piece.size(), std::string("\x0a\x03~~~\x15", 6));
             m.replace(m.find("\x0a\x03<s>"), 5, std::string("\x0a\x03\xE2\x96\x81", 5));
             return m;
         }()},
        {"empty piece", std::string("\x0a\x09\x0a\x05<unk>\x18\x02", 11) + std::string("\x0a\x02\x18\x01", 4)},
        // Found by the sentencepiece_model fuzz target: a normal piece with the text of the unknown
        // piece, which the library accepts but then decodes as the unknown surface.
        {"duplicate piece", std::string("\x0a\x09\x0a\x05<unk>\x18\x02", 11) + std::string("\x0a\x09\x0a\x05<unk>\x18\x01", 11) +
                                std::string("\x0a\x05\x0a\x03" "abc")},
    };
    for (const auto& [name, bytes] : cases) {
        SCOPED_TRACE(name);
        write_file(path, bytes);
        const std::string msg = error_of([&] { load_tokenizer(dir.path()); });
        EXPECT_NE(msg.find("tokenizer file " + path + " is not a valid sentencepiece model"), std::string::npos) << msg;
        if (name == "duplicate piece") {
            EXPECT_NE(msg.find("pieces 0 and 1 are both '<unk>'"), std::string::npos) << msg;
        }
        if (name == "control piece for the space") {
            EXPECT_NE(msg.find("the sentencepiece library cannot encode text with it"), std::string::npos) << msg;
        }
    }
}

// Found by the sentencepiece_model fuzz target: a model with denormalization rules loads in the library,
// whose decode then rewrites the whole text (here to nothing), so the streamed reply and its decode
// disagree. Refused at load with a message naming the feature; the same model without the rules loads.
TEST(TokenizerLoading, SentencepieceDenormalizerIsRefused) {
    TempDir dir;
    const std::string path = dir.path() + "/tokenizer.model";
    // Two pieces: "<unk>" (type 2) and "a" (type 1); then denormalizer_spec (field 5) holding
    // precompiled_charsmap (field 2) of three bytes, and the same spec with an empty charsmap.
    const std::string pieces = std::string("\x0a\x09\x0a\x05<unk>\x18\x02", 11) + std::string("\x0a\x05\x0a\x01" "a\x18\x01", 7);
    const std::string rules = std::string("\x2a\x05\x12\x03xyz", 7);
    const std::string no_rules = std::string("\x2a\x02\x12\x00", 4);

    write_file(path, pieces + rules);
    const std::string msg = error_of([&] { load_tokenizer(dir.path()); });
    EXPECT_NE(msg.find("tokenizer file " + path + " has sentencepiece denormalization rules (denormalizer_spec)"),
              std::string::npos) << msg;
    // An empty charsmap later in the file replaces the rules (protobuf merges the spec): nothing to apply.
    write_file(path, pieces + rules + no_rules);
    EXPECT_EQ(error_of([&] { load_tokenizer(dir.path()); }), "(no error)");
    write_file(path, pieces + no_rules + rules);
    EXPECT_NE(error_of([&] { load_tokenizer(dir.path()); }).find("denormalization rules"), std::string::npos);
}

}  // namespace
}  // namespace folio::test
