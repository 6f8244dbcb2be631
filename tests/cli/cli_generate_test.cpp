// folio-cli generate and chat, end to end: exact greedy ids on both fixtures in the documented JSON
// form, the chat template path, seeded sampling, stop strings, and one clear line on every error.
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"
#include "tests/support/fixtures.h"

namespace folio::test {
namespace {

using json = nlohmann::json;

json generate_json(const std::vector<std::string>& extra) {
    std::vector<std::string> args{"generate", "--backend", "cpu", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out);
}

void expect_one_line_error(const CliResult& r, const std::string& needle) {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(r.out.empty()) << r.out;
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

// The fixtures' ids come from an independent fp32-class implementation: the CPU backend's exact mode.
void check_expected_greedy(const std::string& model) {
    const std::string dir = fixture_path("models/" + model);
    const json expected = json::parse(read_file(dir + "/expected_greedy.json"));
    for (const auto& c : expected["cases"]) {
        const json j = generate_json({"--model", dir, "--cpu-activations", "exact", "--raw", "--prompt", c["prompt"].get<std::string>(),
                                      "--max-tokens", std::to_string(c["ids"].size())});
        EXPECT_EQ(j["prompt_ids"], c["prompt_ids"]);
        EXPECT_EQ(j["ids"], c["ids"]);
        EXPECT_EQ(j["text"], c["text"]);
        EXPECT_EQ(j["finish_reason"], "length");
        EXPECT_EQ(j["timings"]["generated_tokens"], c["ids"].size());
        EXPECT_GT(j["timings"]["decode_tok_s"].get<double>(), 0.0);
    }
}

TEST(GenerateCommand, ExactGreedyStories260K) { check_expected_greedy("stories260K"); }
TEST(GenerateCommand, ExactGreedyTinyAwq) { check_expected_greedy("tiny-awq"); }
// tokenizer.json with special tokens, the family's layer, the padded vocabulary, decoding: end to end.
TEST(GenerateCommand, ExactGreedyTinyLlama3) { check_expected_greedy("tiny-llama3"); }
TEST(GenerateCommand, ExactGreedyTinyQwen2) { check_expected_greedy("tiny-qwen2"); }
TEST(GenerateCommand, ExactGreedyTinyQwen3) { check_expected_greedy("tiny-qwen3"); }

TEST(GenerateCommand, ChatTemplateWrapsThePrompt) {
    const std::string dir = fixture_path("models/tiny-awq");
    const json raw = generate_json({"--model", dir, "--raw", "--prompt", "Hello", "--max-tokens", "2"});
    const json chat = generate_json({"--model", dir, "--prompt", "Hello", "--max-tokens", "2"});
    // Llama-2 family without a template: the built-in "[INST] Hello [/INST]" around the prompt.
    const std::vector<int> inst_open = {1, 518, 25580, 29962};
    ASSERT_GE(chat["prompt_ids"].size(), 8u);
    EXPECT_EQ(std::vector<int>(chat["prompt_ids"].begin(), chat["prompt_ids"].begin() + 4), inst_open);
    EXPECT_GT(chat["prompt_ids"].size(), raw["prompt_ids"].size());
}

TEST(GenerateCommand, SeededSamplingIsReproducible) {
    const std::string dir = fixture_path("models/stories260K");
    const std::vector<std::string> base{"--model", dir, "--raw", "--prompt", "Once upon a time", "--max-tokens", "40",
                                        "--temperature", "1.0", "--top-p", "0.95"};
    auto with_seed = [&](const char* seed) {
        auto a = base;
        a.insert(a.end(), {"--seed", seed});
        return generate_json(a)["ids"];
    };
    EXPECT_EQ(with_seed("7"), with_seed("7"));
    EXPECT_NE(with_seed("7"), with_seed("8"));
}

TEST(GenerateCommand, StopStringEndsTheTextBeforeIt) {
    const std::string dir = fixture_path("models/stories260K");
    const json full = generate_json({"--model", dir, "--raw", "--prompt", "Once upon a time", "--max-tokens", "64"});
    const std::string text = full["text"];
    const auto pos = text.find("Lily");
    ASSERT_NE(pos, std::string::npos) << text;
    const json stopped = generate_json({"--model", dir, "--raw", "--prompt", "Once upon a time", "--max-tokens", "64", "--stop", "Lily"});
    EXPECT_EQ(stopped["finish_reason"], "stop_string");
    EXPECT_EQ(stopped["text"], text.substr(0, pos));
}

TEST(GenerateCommand, StreamsPlainTextWithoutJson) {
    const CliResult r = run_cli({"generate", "--backend", "cpu", "--cpu-activations", "exact", "--model", fixture_path("models/stories260K"),
                                 "--raw", "--prompt", "Once upon a time", "--max-tokens", "64"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json expected = json::parse(read_file(fixture_path("models/stories260K/expected_greedy.json")));
    EXPECT_EQ(r.out, expected["cases"][0]["text"].get<std::string>());
}

// An empty raw prompt is BOS alone, as transformers and llama.cpp generate from. stories260K's greedy
// continuation of BOS is "Once upon a time" (ids 403 407 261 378) and then exactly the reference's
// continuation of that prompt (expected_greedy.json, computed independently in float64).
TEST(GenerateCommand, AnEmptyRawPromptGeneratesFromBosAlone) {
    const std::string dir = fixture_path("models/stories260K");
    const json expected = json::parse(read_file(dir + "/expected_greedy.json"))["cases"][0];
    ASSERT_EQ(expected["prompt_ids"], json::parse("[1, 403, 407, 261, 378]"));
    const size_t n = expected["ids"].size();
    const json j = generate_json({"--model", dir, "--raw", "--prompt", "", "--max-tokens", std::to_string(n + 4)});
    EXPECT_EQ(j["prompt_ids"], json::parse("[1]"));
    std::vector<int> want = {403, 407, 261, 378};
    for (const auto& id : expected["ids"]) want.push_back(id.get<int>());
    EXPECT_EQ(j["ids"].get<std::vector<int>>(), want);
    EXPECT_EQ(j["text"].get<std::string>().rfind("Once upon a time", 0), 0u) << j["text"];
}

TEST(GenerateCommand, DummyModelRuns) {
    const json j = generate_json({"--model", "dummy:tiny", "--raw", "--prompt", "hi", "--max-tokens", "3", "--ignore-eos"});
    EXPECT_EQ(j["ids"].size(), 3u);
    EXPECT_EQ(j["prompt_ids"].size(), 3u);  // BOS + two bytes of the byte tokenizer
}

// Bad usage: exit 2, nothing on stdout, the message on stderr's first line and the command's usage
// after it.
void expect_usage_error(const CliResult& r, const std::string& needle, const std::string& command = "generate") {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    const size_t usage = r.err.find("\n\nusage: folio-cli " + command + " ");
    ASSERT_NE(usage, std::string::npos) << r.err;
    EXPECT_NE(r.err.substr(0, usage).rfind(needle), std::string::npos) << r.err;
}

TEST(GenerateCommand, BadUsageExitsTwoWithTheUsage) {
    expect_usage_error(run_cli({"generate", "--prompt", "x"}), "--model is required");
    expect_usage_error(run_cli({"generate", "--model", "dummy:tiny"}), "--prompt is required");
    expect_usage_error(run_cli({"generate", "--model", "dummy:tiny", "--prompt", "x", "--frobnicate", "1"}), "unknown option --frobnicate");
    expect_usage_error(run_cli({"generate", "--model", "dummy:tiny", "--prompt", "x", "--max-tokens", "many"}), "integer");
    expect_usage_error(run_cli({"generate", "--model", "dummy:tiny", "--prompt", "x", "--max-tokens", "0"}), "--max-tokens must be positive");
    expect_usage_error(run_cli({"generate", "--model", "dummy:tiny", "--prompt", "x", "--backend", "tpu"}), "unknown backend 'tpu'");
    expect_usage_error(run_cli({"generate", "--model", "dummy:tiny", "--prompt", "x", "--cpu-activations", "fp8"}),
                       "--cpu-activations takes one of int8, exact; got 'fp8'");
    expect_usage_error(run_cli({"generate", "--model", "dummy:tiny", "--prompt", "x", "--top-p", "0"}), "--top-p");
    expect_usage_error(run_cli({"generate", "--model", "dummy:tiny", "--prompt", "x", "--raw", "--system", "s"}), "cannot be combined with --raw");
    expect_usage_error(run_cli({"generate", "--model", "dummy:tiny", "--prompt", "x", "stray"}), "unexpected argument 'stray'");
}

// folio-cli export: a dummy model written as a folder runs as a checkpoint; bad flags are bad usage
// (exit 2 with the usage), a folder in use or a shape it cannot quantize one clear line (exit 1).
TEST(ExportCommand, WritesAFolderThatRunsAndRefusesBadFlags) {
    TempDir t;
    const std::string tok = fixture_path("tokenizers/llama2");
    const CliResult ok = run_cli({"export", "--model", "dummy:tiny", "--out", t.file("tiny"), "--tokenizer", tok});
    ASSERT_EQ(ok.exit_code, 0) << ok.err;
    const json j = generate_json({"--model", t.file("tiny"), "--raw", "--prompt", "hi", "--max-tokens", "2", "--ignore-eos"});
    EXPECT_EQ(j["ids"].size(), 2u);
    expect_usage_error(run_cli({"export", "--model", "dummy:tiny", "--out", t.file("x"), "--tokenizer", tok, "--format", "zip"}),
                       "--format takes float or awq", "export");
    expect_usage_error(run_cli({"export", "--model", "dummy:tiny", "--out", t.file("x"), "--tokenizer", tok, "--dtype", "fp8"}),
                       "--dtype takes fp32, fp16 or bf16, got 'fp8'", "export");
    expect_usage_error(run_cli({"export", "--model", "dummy:tiny", "--out", t.file("x")}), "--tokenizer is required", "export");
    expect_usage_error(run_cli({"export", "--model", "dummy:tiny", "--out", t.file("x"), "--tokenizer", tok, "--format", "awq",
                                "--group-size", "48"}),
                       "--group-size takes 32, 64 or 128", "export");
    expect_usage_error(run_cli({"export", "--model", "dummy:tiny", "--out", t.file("x"), "--tokenizer", tok, "stray"}),
                       "unexpected argument 'stray'", "export");
    expect_one_line_error(run_cli({"export", "--model", "dummy:tiny", "--out", t.file("tiny"), "--tokenizer", tok}), "not an empty folder");
    expect_one_line_error(run_cli({"export", "--model", "dummy:tiny", "--out", t.file("y"), "--tokenizer", tok, "--format", "awq"}),
                          "cannot be quantized with group size 128");
}

TEST(GenerateCommand, ErrorsAreOneClearLine) {
    expect_one_line_error(run_cli({"generate", "--model", "/nonexistent/model", "--prompt", "x"}), "/nonexistent/model");
    expect_one_line_error(run_cli({"generate", "--model", "dummy:nope", "--prompt", "x"}), "unknown dummy model");
    // A prompt longer than the context: an error, not a hang.
    std::string longp;
    for (int i = 0; i < 600; ++i) longp += "Once upon a time ";
    expect_one_line_error(run_cli({"generate", "--model", fixture_path("models/stories260K"), "--raw", "--prompt", longp}),
                          "context");
    // A folder without a tokenizer.
    TempDir d;
    write_file(d.file("config.json"), read_file(fixture_path("models/stories260K/config.json")));
    expect_one_line_error(run_cli({"generate", "--model", d.path(), "--prompt", "x"}), "no tokenizer.json or tokenizer.model");
}

TEST(GenerateCommand, CudaBackendRunsOrSaysWhyNot) {
    const CliResult r = run_cli({"generate", "--backend", "cuda", "--model", "dummy:tiny", "--prompt", "x", "--max-tokens", "1",
                                 "--ignore-eos", "--json"});
    if (r.exit_code == 0) {  // a machine with a GPU: the CUDA backend must then really have generated
        const json j = json::parse(r.out);
        EXPECT_EQ(j["backend"], "cuda");
        EXPECT_EQ(j["ids"].size(), 1u);
        return;
    }
    expect_one_line_error(r, "--backend cuda");
}

// The CUDA backend is a module found at run time (engine/backends); FOLIO_CUDA_MODULE names the only
// file to try. Missing or broken, `cuda` says why in one line and `auto` runs on the CPU saying why.
// SPDLOG_LEVEL=info: folio-cli logs warnings only unless asked.
class CudaModuleEnv {
public:
    explicit CudaModuleEnv(const std::string& path) {
        setenv("FOLIO_CUDA_MODULE", path.c_str(), 1);
        setenv("SPDLOG_LEVEL", "info", 1);
    }
    ~CudaModuleEnv() {
        unsetenv("FOLIO_CUDA_MODULE");
        unsetenv("SPDLOG_LEVEL");
    }
};

TEST(GenerateCommand, AMissingCudaModuleIsNamedAndAutoFallsBackToTheCpu) {
    TempDir d;
    const CudaModuleEnv env(d.file("libfolio-cuda.so"));
    const std::vector<std::string> args{"generate", "--model", "dummy:tiny", "--prompt", "x", "--max-tokens", "1", "--ignore-eos", "--json"};
    auto with = [&](const char* backend) {
        auto a = args;
        a.insert(a.end(), {"--backend", backend});
        return run_cli(a);
    };
    expect_one_line_error(with("cuda"), "--backend cuda: the CUDA module libfolio-cuda.so is not installed (looked for " +
                                            d.file("libfolio-cuda.so") + "); install the folio-cuda package");
    const CliResult a = with("auto");
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(json::parse(a.out)["backend"], "cpu");
    EXPECT_NE(a.err.find("backend auto: using the CPU; CUDA is not used because the CUDA module libfolio-cuda.so is not installed"),
              std::string::npos) << a.err;
}

TEST(GenerateCommand, ACudaModuleThatCannotLoadIsNamedWithTheReason) {
    TempDir d;
    write_file(d.file("libfolio-cuda.so"), "not a shared library");
    setenv("FOLIO_CUDA_MODULE", d.file("libfolio-cuda.so").c_str(), 1);
    expect_one_line_error(run_cli({"generate", "--backend", "cuda", "--model", "dummy:tiny", "--prompt", "x", "--max-tokens", "1"}),
                          "--backend cuda: the CUDA module " + d.file("libfolio-cuda.so") + " cannot be loaded: ");
    // Installed but broken: `auto` warns (shown without SPDLOG_LEVEL) and runs on the CPU.
    const CliResult a = run_cli({"generate", "--backend", "auto", "--model", "dummy:tiny", "--prompt", "x", "--max-tokens", "1", "--json"});
    unsetenv("FOLIO_CUDA_MODULE");
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_NE(a.err.find("[warning] backend auto: using the CPU; CUDA is not used because the CUDA module"), std::string::npos) << a.err;
}

TEST(ChatCommand, AnswersEachLineAndExits) {
    const CliResult r = run_cli({"chat", "--backend", "cpu", "--model", fixture_path("models/stories260K"), "--max-tokens", "20"},
                                "Tell me a story\n/reset\nAnd another\n/exit\n");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GE(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;
    EXPECT_NE(r.err.find("conversation cleared"), std::string::npos) << r.err;
    EXPECT_GT(r.out.size(), 20u);
}

}  // namespace
}  // namespace folio::test
