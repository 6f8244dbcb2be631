// folio-cli tokenize / detokenize on tokenizer.json folders, run as a process: the fixtures' vectors
// with and without special tokens, folders that hold only tokenizer files, the tiny model folders,
// detokenize's output forms, and one-line errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"
#include "tests/support/fixtures.h"

namespace folio::test {
namespace {

std::vector<int> ids_of(const CliResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return nlohmann::json::parse(r.out).at("ids").get<std::vector<int>>();
}

std::string text_of(const CliResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out).at("text").get<std::string>();
}

std::string join_ids(const std::vector<int>& ids) {
    std::string s;
    for (int id : ids) {
        if (!s.empty()) s += ',';
        s += std::to_string(id);
    }
    return s;
}

// Bad usage (a malformed or missing option): exit 2, the message first, then the command's usage.
void expect_usage_error(const std::vector<std::string>& args, const std::string& what) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.substr(0, r.err.find('\n')).find(what), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\n\nusage: folio-cli " + args.front() + " "), std::string::npos) << r.err;
}

void expect_error(const std::vector<std::string>& args, const std::string& what) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

// A few of each fixture's vectors (the engine test checks them all; each CLI run loads the file).
void check_fixture(const std::string& name, const std::vector<size_t>& picks) {
    const std::string dir = fixture_path("tokenizers/" + name);
    const auto cases = nlohmann::json::parse(read_file(dir + "/vectors.json")).at("cases");
    for (size_t k : picks) {
        const auto& c = cases.at(k);
        const std::string text = c.at("text");
        SCOPED_TRACE(name + ": " + text);
        const auto ids = c.at("ids").get<std::vector<int>>();
        EXPECT_EQ(ids_of(run_cli({"tokenize", "--model", dir, "--text", text, "--json"})), ids);
        EXPECT_EQ(ids_of(run_cli({"tokenize", "--model", dir, "--text", text, "--json", "--add-special-tokens"})),
                  c.at("ids_with_special").get<std::vector<int>>());
        if (!ids.empty()) {
            EXPECT_EQ(text_of(run_cli({"detokenize", "--model", dir, "--ids", join_ids(ids), "--json"})),
                      c.at("decoded").get<std::string>());
        }
    }
}

TEST(CliTokenizerJson, Llama31Vectors) { check_fixture("llama3_1", {5, 28, 37}); }
TEST(CliTokenizerJson, Qwen3Vectors) { check_fixture("qwen3", {11, 20, 38}); }

TEST(CliTokenizerJson, FolderWithOnlyTokenizerJsonAndTheFileItself) {
    TempDir dir;
    write_file(dir.file("tokenizer.json"), read_file(fixture_path("tokenizers/llama3_1/tokenizer.json")));
    // No tokenizer_config.json: clean_up_tokenization_spaces stays off.
    EXPECT_EQ(ids_of(run_cli({"tokenize", "--model", dir.path(), "--text", "Hello World", "--json", "--add-special-tokens"})),
              (std::vector<int>{128000, 9906, 4435}));
    EXPECT_EQ(ids_of(run_cli({"tokenize", "--model", dir.file("tokenizer.json"), "--text", "Hello World", "--json"})),
              (std::vector<int>{9906, 4435}));
    EXPECT_EQ(text_of(run_cli({"detokenize", "--model", dir.path(), "--ids", "9906,662", "--json"})), "Hello .");
    // With the config (clean_up_tokenization_spaces: true), " ." loses its space, as transformers prints it.
    EXPECT_EQ(text_of(run_cli({"detokenize", "--model", fixture_path("tokenizers/llama3_1"), "--ids", "9906,662", "--json"})),
              "Hello.");
}

TEST(CliTokenizerJson, TinyModelFolders) {
    // The tiny models' expected_greedy.json prompts were encoded with special tokens by tokenizer.json.
    for (const char* name : {"tiny-llama3", "tiny-qwen2", "tiny-qwen3"}) {
        SCOPED_TRACE(name);
        const std::string dir = fixture_path(std::string("models/") + name);
        const auto expected = nlohmann::json::parse(read_file(dir + "/expected_greedy.json"));
        for (const auto& c : expected.at("cases")) {
            const std::string prompt = c.at("prompt");
            EXPECT_EQ(ids_of(run_cli({"tokenize", "--model", dir, "--text", prompt, "--json", "--add-special-tokens"})),
                      c.at("prompt_ids").get<std::vector<int>>());
            // The generated ids decode to the reference's text.
            EXPECT_EQ(text_of(run_cli({"detokenize", "--model", dir, "--ids", join_ids(c.at("ids").get<std::vector<int>>()),
                                       "--json", "--skip-special-tokens"})),
                      c.at("text").get<std::string>());
        }
    }
}

// A Llama-3.1-shaped model whose folder has only tokenizer.json: its prompt is encoded with
// <|begin_of_text|> and the streamed text of its greedy tokens is the reference's decode.
TEST(CliTokenizerJson, GenerateOnALlama3Folder) {
    const std::string dir = fixture_path("models/tiny-llama3");
    const auto c = nlohmann::json::parse(read_file(dir + "/expected_greedy.json")).at("cases").at(0);
    const CliResult r = run_cli({"generate", "--model", dir, "--prompt", c.at("prompt").get<std::string>(), "--raw",
                                 "--temperature", "0", "--max-tokens", std::to_string(c.at("steps").get<int>()),
                                 "--backend", "cpu", "--cpu-activations", "exact", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto out = nlohmann::json::parse(r.out);
    EXPECT_EQ(out.at("prompt_ids"), c.at("prompt_ids"));
    EXPECT_EQ(out.at("ids"), c.at("ids"));
    EXPECT_EQ(out.at("text"), c.at("text"));
}

TEST(CliTokenizerJson, DetokenizeForms) {
    const std::string llama = fixture_path("tokenizers/llama3_1");
    EXPECT_EQ(text_of(run_cli({"detokenize", "--model", llama, "--ids", "[128000, 9906, 4435]", "--json"})),
              "<|begin_of_text|>Hello World");
    EXPECT_EQ(text_of(run_cli({"detokenize", "--model", llama, "--ids", "128000 9906 4435", "--json", "--skip-special-tokens"})),
              "Hello World");
    const CliResult plain = run_cli({"detokenize", "--model", llama, "--ids", "9906,4435"});
    EXPECT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(plain.out, "Hello World\n");
    // An emoji split over byte tokens, cut in the middle: U+FFFD, never broken UTF-8.
    const auto emoji = ids_of(run_cli({"tokenize", "--model", llama, "--text", "\xF0\x9F\xA6\x99", "--json"}));
    ASSERT_GE(emoji.size(), 2u);
    EXPECT_EQ(text_of(run_cli({"detokenize", "--model", llama, "--ids", std::to_string(emoji[0]), "--json"})), "\xEF\xBF\xBD");
    // sentencepiece and dummy models decode too.
    EXPECT_EQ(text_of(run_cli({"detokenize", "--model", fixture_path("tokenizers/llama2"), "--ids", "1,15043,3186", "--json"})),
              "Hello world");
    EXPECT_EQ(text_of(run_cli({"detokenize", "--model", "dummy:tiny", "--ids", "107,108", "--json"})), "hi");
}

TEST(CliTokenizerJson, ErrorsAreOneLineAndExitCodeOne) {
    const std::string llama = fixture_path("tokenizers/llama3_1");
    expect_usage_error({"detokenize", "--model", llama, "--ids", "1,x"}, "--ids: 'x' is not a token id");
    expect_usage_error({"detokenize", "--model", llama, "--ids", "-3"}, "--ids: '-3' is not a token id");
    expect_error({"detokenize", "--model", llama, "--ids", "999999"}, "token id 999999 is outside the vocabulary");
    expect_usage_error({"detokenize", "--model", llama}, "--ids is required");
    expect_error({"tokenize", "--model", llama, "--text", "caf\xE9", "--json"}, "--text is not valid UTF-8 (byte 3)");
    expect_usage_error({"tokenize", "--model", llama, "--text", "a", "--bos", "--add-special-tokens"}, "not both");
    TempDir dir;
    write_file(dir.file("tokenizer.json"), R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
        "pre_tokenizer": {"type": "Whitespace"}})");
    expect_error({"tokenize", "--model", dir.path(), "--text", "a", "--json"},
                 "pre-tokenizer type \"Whitespace\" is not supported");
    expect_error({"detokenize", "--model", dir.path(), "--ids", "0"}, dir.file("tokenizer.json"));
}

}  // namespace
}  // namespace folio::test
