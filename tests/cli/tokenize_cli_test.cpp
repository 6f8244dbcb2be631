// folio-cli tokenize, run as a process: output form, --bos, --file, a folder holding only
// tokenizer.model, --backend validation, bad usage (exit 2 with the usage) and one-line errors with
// exit code 1.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/tokenizer/tokenizer_loader.h"
#include "tests/support/fixtures.h"

namespace folio::test {
namespace {

struct CliResult {
    int exit_code = -1;
    std::string out, err;
};

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

CliResult run_tokenize(const std::vector<std::string>& args) {
    TempDir io;
    std::string cmd = shell_quote(FOLIO_CLI_PATH);
    cmd.append(" tokenize");
    for (const auto& a : args) cmd.append(" ").append(shell_quote(a));
    cmd.append(" >").append(shell_quote(io.file("out")));
    cmd.append(" 2>").append(shell_quote(io.file("err")));
    cmd.append(" </dev/null");
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(io.file("out"));
    r.err = read_file(io.file("err"));
    return r;
}

std::vector<int> ids_of(const CliResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.size(), 1u);
    return j.at("ids").get<std::vector<int>>();
}

// Fails unless the command refused its command line: exit code 2, the message holding `what` on the
// first line of stderr and the command's usage after it.
void expect_usage_error(const std::vector<std::string>& args, const std::string& what) {
    const CliResult r = run_tokenize(args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    const std::string first_line = r.err.substr(0, r.err.find('\n'));
    EXPECT_NE(first_line.find(what), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\n\nusage: folio-cli tokenize"), std::string::npos) << r.err;
}

// Fails unless the command failed with exit code 1 and exactly one line on stderr holding `what`.
void expect_error(const std::vector<std::string>& args, const std::string& what) {
    const CliResult r = run_tokenize(args);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

TEST(CliTokenize, PrintsIdsAsJsonWithoutBos) {
    const std::string llama = fixture_path("tokenizers/llama2");  // holds only tokenizer.model (+ vectors)
    EXPECT_EQ(ids_of(run_tokenize({"--model", llama, "--text", "Hello world", "--json"})), (std::vector<int>{15043, 3186}));
    EXPECT_EQ(ids_of(run_tokenize({"--model", llama, "--text", "Hello world", "--bos", "--json"})),
              (std::vector<int>{1, 15043, 3186}));
    EXPECT_EQ(ids_of(run_tokenize({"--model", llama, "--text", "", "--json"})), std::vector<int>{});
    // Literal "<s>" is text.
    EXPECT_EQ(ids_of(run_tokenize({"--model", llama, "--text", "<s>", "--json"})), (std::vector<int>{529, 29879, 29958}));
}

TEST(CliTokenize, ModelFolderAndBareTokenizerFolder) {
    // A real model folder (tokenizer_config.json says add_bos_token: still no BOS without --bos).
    const std::string stories = fixture_path("models/stories260K");
    const auto tok = load_tokenizer(stories);
    const std::string text = "Once upon a time, there was a little girl named Lily.";
    std::vector<int> expected = tok->encode(text);
    EXPECT_EQ(ids_of(run_tokenize({"--model", stories, "--text", text, "--json"})), expected);
    expected.insert(expected.begin(), 1);
    EXPECT_EQ(ids_of(run_tokenize({"--model", stories, "--text", text, "--json", "--bos"})), expected);

    // A folder that holds nothing but tokenizer.model, and the file itself.
    TempDir dir;
    write_file(dir.file("tokenizer.model"), read_file(fixture_path("tokenizers/llama2/tokenizer.model")));
    EXPECT_EQ(ids_of(run_tokenize({"--model", dir.path(), "--text", "Hello world", "--json", "--bos"})),
              (std::vector<int>{1, 15043, 3186}));
    EXPECT_EQ(ids_of(run_tokenize({"--model", dir.file("tokenizer.model"), "--text", "Hello world", "--json"})),
              (std::vector<int>{15043, 3186}));
}

TEST(CliTokenize, DummyModelsUseTheByteTokenizer) {
    EXPECT_EQ(ids_of(run_tokenize({"--model", "dummy:tiny", "--text", "hi\xC3\xA9", "--json", "--bos"})),
              (std::vector<int>{1, 3 + 'h', 3 + 'i', 3 + 0xC3, 3 + 0xA9}));
}

TEST(CliTokenize, ReadsTextFromAFile) {
    TempDir dir;
    write_file(dir.file("prompt.txt"), "line one\nline two");
    EXPECT_EQ(ids_of(run_tokenize({"--model", fixture_path("tokenizers/llama2"), "--file", dir.file("prompt.txt"), "--json"})),
              (std::vector<int>{1196, 697, 13, 1220, 1023}));
}

TEST(CliTokenize, PlainOutputListsIdsAndPieces) {
    const CliResult r = run_tokenize({"--model", fixture_path("tokenizers/llama2"), "--text", "Hello world", "--bos"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "1\t<s>\n15043\t\xE2\x96\x81Hello\n3186\t\xE2\x96\x81world\n");
}

TEST(CliTokenize, BackendIsAcceptedAndValidated) {
    const std::string llama = fixture_path("tokenizers/llama2");
    for (const char* b : {"auto", "cpu", "cuda"})
        EXPECT_EQ(ids_of(run_tokenize({"--model", llama, "--text", "a", "--json", "--backend", b})), (std::vector<int>{263}));
    expect_usage_error({"--model", llama, "--text", "a", "--json", "--backend", "gpu"}, "unknown backend 'gpu': use auto, cpu or cuda");
}

TEST(CliTokenize, UsageErrorsExitTwoOtherErrorsAreOneLineAndExitOne) {
    const std::string llama = fixture_path("tokenizers/llama2");
    TempDir dir;
    expect_usage_error({"--text", "a", "--json"}, "--model is required");
    expect_usage_error({"--model", llama, "--json"}, "exactly one of --text");
    expect_usage_error({"--model", llama, "--text", "a", "--file", "x", "--json"}, "exactly one of --text");
    expect_error({"--model", llama, "--file", dir.file("missing.txt"), "--json"}, dir.file("missing.txt"));
    expect_error({"--model", dir.path(), "--text", "a", "--json"}, "no tokenizer.json or tokenizer.model in " + dir.path());
    expect_error({"--model", dir.file("nope"), "--text", "a", "--json"}, dir.file("nope"));
    write_file(dir.file("tokenizer.model"), "garbage, not a model");
    expect_error({"--model", dir.path(), "--text", "a", "--json"}, dir.file("tokenizer.model"));
    write_file(dir.file("tokenizer.model"), read_file(fixture_path("tokenizers/llama2/tokenizer.model")));
    write_file(dir.file("tokenizer_config.json"), "{broken");
    expect_error({"--model", dir.path(), "--text", "a", "--json"}, dir.file("tokenizer_config.json"));
    expect_usage_error({"--model", llama, "--text", "a", "--frobnicate"}, "unknown option --frobnicate");
    expect_usage_error({"--model", llama, "--text", "a", "stray"}, "unexpected argument 'stray'");
    expect_error({"--model", "dummy:no-such-shape", "--text", "a"}, "no-such-shape");
}

}  // namespace
}  // namespace folio::test
