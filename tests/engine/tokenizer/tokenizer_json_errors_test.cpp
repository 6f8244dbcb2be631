// A malformed tokenizer.json or tokenizer_config.json is refused with a message that names the file,
// the JSON path of the fault and what was expected.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/tokenizer/tokenizer_loader.h"
#include "engine/tokenizer/tokenizer_json.h"
#include "tests/support/fixtures.h"

namespace folio::test {
namespace {

std::string error_of(const std::string& file, const std::optional<std::string>& config = std::nullopt) {
    try {
        parse_tokenizer_json(file, config, "/m/tokenizer.json", "/m/tokenizer_config.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

// A valid file with `part` spliced in after the model.
std::string file_with(const std::string& part) {
    return R"({"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})" +
           (part.empty() ? "" : ", " + part) + "}";
}

void expect_error(const std::string& msg, const std::vector<std::string>& parts) {
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing \"" << p << "\" in: " << msg;
}

TEST(TokenizerJsonErrors, BrokenJsonAndShape) {
    expect_error(error_of("{\"model\": "), {"/m/tokenizer.json", "is not valid JSON"});
    expect_error(error_of(""), {"/m/tokenizer.json", "is not valid JSON"});
    expect_error(error_of("[1, 2]"), {"/m/tokenizer.json", "must be a JSON object"});
    expect_error(error_of("{}"), {"\"model\" is missing"});
    expect_error(error_of(R"({"model": 3})"), {"model: must be an object"});
    expect_error(error_of(R"({"version": "2.0", "model": {}})"), {"version", "\"2.0\""});
}

TEST(TokenizerJsonErrors, Model) {
    expect_error(error_of(R"({"model": {"type": "WordPiece", "vocab": {}}})"),
                 {"model.type", "\"WordPiece\" is not supported", "BPE"});
    expect_error(error_of(R"({"model": {"type": "BPE", "merges": []}})"), {"model", "\"vocab\" is missing"});
    expect_error(error_of(R"({"model": {"type": "BPE", "vocab": {"a": 0}}})"), {"\"merges\" is missing"});
    expect_error(error_of(R"({"model": {"type": "BPE", "vocab": {"a": -1}, "merges": []}})"),
                 {"model.vocab", "\"a\"", "an integer from 0 to"});
    // A huge id would size the tables: refused.
    expect_error(error_of(R"({"model": {"type": "BPE", "vocab": {"a": 2147483647}, "merges": []}})"),
                 {"model.vocab", "\"a\"", "an integer from 0 to 16777215"});
    expect_error(error_of(file_with(R"("added_tokens": [{"id": 4000000000, "content": "<x>"}])")),
                 {"added_tokens[0].id", "an integer from 0 to"});
    expect_error(error_of(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a x"]}})"),
                 {"merge 0", "\"x\", which is not in the vocabulary"});
    expect_error(error_of(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]}})"),
                 {"makes \"ab\", which is not in the vocabulary"});
    expect_error(error_of(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b c"]}})"),
                 {"model.merges[0]", "two tokens separated by one space"});
    expect_error(error_of(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [7]}})"), {"model.merges[0]"});
    expect_error(error_of(R"({"model": {"type": "BPE", "dropout": 0.1, "vocab": {"a": 0}, "merges": []}})"),
                 {"model.dropout", "not supported"});
    expect_error(error_of(R"({"model": {"type": "BPE", "byte_fallback": "yes", "vocab": {"a": 0}, "merges": []}})"),
                 {"model.byte_fallback", "true or false"});
}

TEST(TokenizerJsonErrors, ComponentsNameTheUnknownType) {
    expect_error(error_of(file_with(R"("pre_tokenizer": {"type": "Whitespace"})")),
                 {"pre_tokenizer", "pre-tokenizer type \"Whitespace\" is not supported", "Split, ByteLevel"});
    expect_error(error_of(file_with(R"("pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Digits"}, {"type": "Punctuation"}]})")),
                 {"pre_tokenizer.pretokenizers[1]", "\"Punctuation\""});
    expect_error(error_of(file_with(R"("normalizer": {"type": "Precompiled", "precompiled_charsmap": ""})")),
                 {"normalizer", "normalizer type \"Precompiled\" is not supported"});
    expect_error(error_of(file_with(R"("decoder": {"type": "WordPiece"})")), {"decoder", "\"WordPiece\" is not supported"});
    expect_error(error_of(file_with(R"("post_processor": {"type": "Nope"})")), {"post_processor", "\"Nope\""});
    expect_error(error_of(file_with(R"("pre_tokenizer": {"pattern": {"Regex": "a"}})")), {"pre_tokenizer", "\"type\" is missing"});
}

TEST(TokenizerJsonErrors, ComponentFields) {
    expect_error(error_of(file_with(R"("pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a"}, "behavior": "Isolated"})")),
                 {"pre_tokenizer.pattern.Regex", "does not compile"});
    expect_error(error_of(file_with(R"("pre_tokenizer": {"type": "Split", "pattern": {"Glob": "*"}, "behavior": "Isolated"})")),
                 {"pre_tokenizer.pattern", "\"String\"", "\"Regex\""});
    expect_error(error_of(file_with(R"("pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Sideways"})")),
                 {"pre_tokenizer.behavior", "\"Sideways\""});
    expect_error(error_of(file_with(R"("pre_tokenizer": {"type": "Metaspace", "replacement": "ab"})")),
                 {"pre_tokenizer.replacement", "one character"});
    expect_error(error_of(file_with(R"("pre_tokenizer": {"type": "Metaspace", "replacement": "_", "prepend_scheme": "sometimes"})")),
                 {"prepend_scheme", "\"sometimes\""});
    expect_error(error_of(file_with(R"("decoder": {"type": "Strip", "content": " ", "start": -1})")), {"decoder.start"});
    expect_error(error_of(file_with(R"("post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}], "special_tokens": {}})")),
                 {"post_processor.single[0]", "\"<s>\" is not in special_tokens"});
    expect_error(error_of(file_with(R"("post_processor": {"type": "TemplateProcessing", "single": [], "special_tokens": {}})")),
                 {"post_processor.single", "$A exactly once"});
    // Found by the tokenizer_json_load fuzz target: a template whose special token's id is no token
    // made encode_with_special_tokens return an id outside the vocabulary.
    expect_error(error_of(file_with(R"("post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}], "special_tokens": {"<s>": {"id": "<s>", "ids": [266], "tokens": ["<s>"]}}})")),
                 {"/m/tokenizer.json", "post_processor", "adds token id 266", "neither in the model's vocabulary nor an added token"});
    expect_error(error_of(file_with(R"("post_processor": {"type": "RobertaProcessing", "cls": ["<s>", 3], "sep": ["</s>", 1]})")),
                 {"post_processor", "adds token id 3"});
    // An added token's id is a token, even above the model's vocabulary.
    EXPECT_EQ(error_of(file_with(R"("added_tokens": [{"id": 7, "content": "<s>", "special": true}], "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}], "special_tokens": {"<s>": {"id": "<s>", "ids": [7], "tokens": ["<s>"]}}})")),
              "(no error)");
}

TEST(TokenizerJsonErrors, AddedTokensAndConfig) {
    expect_error(error_of(file_with(R"("added_tokens": [{"id": 5, "content": "<x>"}, {"id": 5, "content": "<y>"}])")),
                 {"added_tokens[1].id", "already the added token \"<x>\""});
    expect_error(error_of(file_with(R"("added_tokens": [{"content": "<x>"}])")), {"added_tokens[0]", "\"id\" is missing"});
    expect_error(error_of(file_with(""), std::string("{oops")), {"/m/tokenizer_config.json", "is not valid JSON"});
    expect_error(error_of(file_with(""), std::string(R"({"clean_up_tokenization_spaces": "yes"})")),
                 {"/m/tokenizer_config.json", "clean_up_tokenization_spaces", "true or false"});
    expect_error(error_of(file_with(""), std::string(R"({"tokenizer_class": "LlamaTokenizer", "bos_token": null})")),
                 {"/m/tokenizer_config.json", "add_bos_token", "bos_token names no token"});
}

TEST(TokenizerJsonErrors, FilesOnDisk) {
    TempDir dir;
    std::string msg;
    try {
        load_tokenizer(dir.file("tokenizer.json"));
    } catch (const Error& e) {
        msg = e.what();
    }
    expect_error(msg, {dir.file("tokenizer.json"), "does not exist"});
    write_file(dir.file("tokenizer.json"), file_with(""));
    write_file(dir.file("tokenizer_config.json"), "[]");
    msg.clear();
    try {
        load_tokenizer(dir.path());
    } catch (const Error& e) {
        msg = e.what();
    }
    expect_error(msg, {dir.file("tokenizer_config.json"), "must be an object"});
    write_file(dir.file("tokenizer_config.json"), "{}");
    EXPECT_EQ(load_tokenizer(dir.path())->encode("ab"), (std::vector<int>{2}));
}

}  // namespace
}  // namespace folio::test
