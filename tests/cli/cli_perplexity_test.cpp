// folio-cli perplexity end to end: the JSON result on stories260K, a saved base run compared with an
// FP8 run (KL divergence, top-1 agreement, the perplexity ratio), the greedy ids of the FP8 fixtures
// and of an FP8 KV cache through generate, and one clear line for each mistake.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"
#include "tests/support/fixtures.h"

namespace folio::test {
namespace {

using json = nlohmann::json;

json run_json(const std::vector<std::string>& extra) {
    // The exact mode: the base and every run compared with it (the CPU default is int8 activations).
    std::vector<std::string> args{"perplexity", "--backend", "cpu", "--cpu-activations", "exact", "--json", "--model", fixture_path("models/stories260K"), "--file",
                                  fixture_path("text/story.txt"), "--ctx", "128"};
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

TEST(PerplexityCommand, SavesABaseAndComparesAnFp8RunAgainstIt) {
    TempDir d;
    const std::string base = d.file("base.lp");
    const json b = run_json({"--save-logits", base});
    EXPECT_EQ(b["tokens"], 1346);
    EXPECT_EQ(b["windows"], 11);
    EXPECT_EQ(b["kv_cache_dtype"], "fp32");
    const double base_ppl = b["ppl"].get<double>();
    EXPECT_GT(base_ppl, 1.0);

    const json q = run_json({"--quantization", "fp8", "--kv-cache-dtype", "fp8", "--calculate-kv-scales", "--kl-divergence", base});
    EXPECT_EQ(q["weights"], "fp8-e4m3-channel (at load)");
    EXPECT_EQ(q["kv_cache_dtype"], "fp8_e4m3 (calibrated)");
    const json& kl = q["kl"];
    EXPECT_NEAR(kl["base_ppl"].get<double>(), base_ppl, 1e-3 * base_ppl);
    EXPECT_NEAR(kl["ppl_ratio"].get<double>(), q["ppl"].get<double>() / base_ppl, 1e-6);  // base from stored float32 log-probs
    EXPECT_GT(kl["mean_kl"].get<double>(), 0.0);
    EXPECT_LT(kl["mean_kl"].get<double>(), 0.05);
    EXPECT_GT(kl["top1_agreement"].get<double>(), 0.9);

    // The base against itself: no divergence.
    const json same = run_json({"--kl-divergence", base});
    EXPECT_LT(same["kl"]["mean_kl"].get<double>(), 1e-6);
    EXPECT_EQ(same["kl"]["top1_agreement"], 1.0);

    // Other windows than the base's: refused with what to change.
    const CliResult r = run_cli({"perplexity", "--backend", "cpu", "--cpu-activations", "exact", "--model", fixture_path("models/stories260K"),
                                 "--file", fixture_path("text/story.txt"), "--ctx", "64", "--kl-divergence", base});
    expect_one_line_error(r, "use the same --file, --ctx and tokenizer as the base run");
}

TEST(PerplexityCommand, MistakesAreOneClearLine) {
    const std::string model = fixture_path("models/stories260K");
    const std::string text = fixture_path("text/story.txt");
    expect_one_line_error(run_cli({"perplexity", "--model", model, "--file", "/nonexistent.txt"}), "--file /nonexistent.txt: no such file");
    expect_one_line_error(run_cli({"perplexity", "--backend", "cpu", "--model", model, "--file", text, "--ctx", "100000"}),
                          "must be between 2 and the model's context of 512 tokens");
    expect_one_line_error(run_cli({"perplexity", "--model", model, "--file", text, "--kv-cache-dtype", "int4"}), "unknown KV cache dtype 'int4'");
    expect_one_line_error(run_cli({"perplexity", "--model", model, "--file", text, "--quantization", "q4"}), "unknown --quantization 'q4'");
    expect_one_line_error(run_cli({"perplexity", "--model", model, "--file", text, "--calculate-kv-scales"}), "add --kv-cache-dtype fp8");
    expect_one_line_error(run_cli({"perplexity", "--model", fixture_path("models/stories260K-fp8"), "--file", text, "--quantization", "fp8"}),
                          "already an FP8 checkpoint");
    TempDir d;
    write_file(d.file("junk.lp"), "junk");
    expect_one_line_error(run_cli({"perplexity", "--backend", "cpu", "--model", model, "--file", text, "--ctx", "128", "--kl-divergence",
                                   d.file("junk.lp")}),
                          "not a Folio log-probability file");
}

// generate on the FP8 fixtures and with an FP8 KV cache: the fixtures' weight-only reference ids.
TEST(PerplexityCommand, GenerateRunsFp8CheckpointsExactly) {
    for (const std::string model : {"stories260K-fp8", "stories260K-fp8-ct"}) {
        const std::string dir = fixture_path("models/" + model);
        const json expected = json::parse(read_file(dir + "/expected_greedy.json"));
        const auto& c = expected["cases"][0];
        const CliResult r = run_cli({"generate", "--backend", "cpu", "--cpu-activations", "exact", "--json", "--model", dir, "--raw", "--prompt", c["prompt"].get<std::string>(),
                                     "--max-tokens", std::to_string(c["ids"].size())});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(json::parse(r.out)["ids"], c["ids"]) << model;
    }
    const CliResult r = run_cli({"generate", "--backend", "cpu", "--cpu-activations", "exact", "--json", "--model", fixture_path("models/stories260K"), "--raw", "--prompt",
                                 "Once upon a time", "--max-tokens", "8", "--kv-cache-dtype", "fp8"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["ids"].size(), 8u);
}

}  // namespace
}  // namespace folio::test
