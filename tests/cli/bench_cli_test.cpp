// folio-bench as a process on stories260K: the --json summary has every key other checks read, the
// --dump-outputs file has one line per request, batching modes and prefix caching leave greedy
// outputs unchanged, the suites report what they promise, and bad arguments end with a clear message
// and a non-zero status.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "tests/support/fixtures.h"

namespace {

struct BenchRun {
    int status = -1;
    std::string out, err;
};

BenchRun bench(const std::string& args, const folio::test::TempDir& dir) {
    const std::string out = dir.file("stdout"), err = dir.file("stderr");
    const std::string cmd = std::string(FOLIO_BENCH_PATH) + " " + args + " > " + out + " 2> " + err;
    const int rc = std::system(cmd.c_str());
    BenchRun r;
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = folio::test::read_file(out);
    r.err = folio::test::read_file(err);
    return r;
}

std::vector<nlohmann::json> read_jsonl(const std::string& path) {
    std::vector<nlohmann::json> out;
    std::istringstream in(folio::test::read_file(path));
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    return out;
}

std::string model() { return folio::test::fixture_path("models/stories260K"); }

TEST(BenchCli, JsonSummaryHasEveryKeyAndSaneValues) {
    folio::test::TempDir dir;
    const BenchRun r = bench("--model " + model() + " --num-requests 6 --input-len 8:40 --output-len 12 --concurrency 4 --json", dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const char* key : {"requests", "output_tokens", "duration_s", "output_tokens_per_s", "ttft_ms_p50", "ttft_ms_p99", "itl_ms_p50",
                            "itl_ms_p99", "peak_blocks_used", "kv_fragmentation", "preemptions", "prefix_hit_rate"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["requests"], 6);
    EXPECT_EQ(j["completed"], 6);
    EXPECT_EQ(j["output_tokens"], 6 * 12);
    EXPECT_GT(j["duration_s"].get<double>(), 0);
    EXPECT_GT(j["output_tokens_per_s"].get<double>(), 0);
    EXPECT_LE(j["ttft_ms_p50"].get<double>(), j["ttft_ms_p99"].get<double>());
    EXPECT_LE(j["itl_ms_p50"].get<double>(), j["itl_ms_p99"].get<double>());
    EXPECT_GT(j["peak_blocks_used"].get<int64_t>(), 0);
    EXPECT_GE(j["kv_fragmentation"].get<double>(), 0);
    EXPECT_LT(j["kv_fragmentation"].get<double>(), 1);
    EXPECT_LE(j["mean_batch_seqs"].get<double>(), 4.0);  // --concurrency 4
}

TEST(BenchCli, PromptFileDumpsOneLinePerRequestAndOutputsDoNotDependOnBatching) {
    folio::test::TempDir dir;
    folio::test::write_file(dir.file("prompts.jsonl"),
                            "{\"prompt\": \"Once upon a time\", \"max_tokens\": 20}\n"
                            "{\"prompt\": \"The little dog\"}\n"
                            "\n"
                            "{\"prompt\": \"Once upon a time there was a girl\", \"max_tokens\": 7}\n");
    const std::string base = "--model " + model() + " --prompts " + dir.file("prompts.jsonl") + " --max-tokens 9 --ignore-eos";
    std::vector<std::vector<nlohmann::json>> dumps;
    for (const std::string mode : {"--batching continuous", "--batching static --static-batch-size 2", "--prefix-caching off",
                                   "--concurrency 1", "--kv-blocks 3", "--batching static --static-batch-size 8 --concurrency 2"}) {
        const std::string dump = dir.file("out.jsonl");
        const BenchRun r = bench(base + " " + mode + " --json --dump-outputs " + dump, dir);
        ASSERT_EQ(r.status, 0) << mode << ": " << r.err;
        EXPECT_EQ(nlohmann::json::parse(r.out)["batching"], mode.find("static") != std::string::npos ? "static" : "continuous");
        dumps.push_back(read_jsonl(dump));
    }
    const auto& first = dumps.front();
    ASSERT_EQ(first.size(), 3u);
    EXPECT_EQ(first[0]["index"], 0);
    EXPECT_EQ(first[0]["prompt_ids"], nlohmann::json({1, 403, 407, 261, 378}));  // BOS + "Once upon a time"
    EXPECT_EQ(first[0]["ids"].size(), 20u);
    EXPECT_EQ(first[1]["ids"].size(), 9u);  // --max-tokens for a line without one
    EXPECT_EQ(first[2]["ids"].size(), 7u);
    for (size_t d = 1; d < dumps.size(); ++d)
        for (size_t i = 0; i < first.size(); ++i) {
            EXPECT_EQ(dumps[d][i]["prompt_ids"], first[i]["prompt_ids"]) << "run " << d;
            EXPECT_EQ(dumps[d][i]["ids"], first[i]["ids"]) << "run " << d << " request " << i;
        }
}

TEST(BenchCli, HumanTableAndSuites) {
    folio::test::TempDir dir;
    BenchRun r = bench("--model " + model() + " --num-requests 3 --input-len 10 --output-len 4 --rate 50", dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("throughput"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fragmentation"), std::string::npos) << r.out;
    r = bench("--model " + model() + " --suite decode --rounds 1 --streams 1,2 --prefill-len 64 --decode-tokens 4 --bandwidth-mib 16 --json", dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto d = nlohmann::json::parse(r.out);
    EXPECT_GT(d["weight_bytes_per_token"].get<int64_t>(), 0);
    EXPECT_GT(d["read_gbps"].get<double>(), 0);
    EXPECT_GT(d["prefill_tok_s"].get<double>(), 0);
    ASSERT_EQ(d["decode"].size(), 2u);
    EXPECT_EQ(d["decode"][1]["streams"], 2);
    EXPECT_GT(d["decode"][1]["tok_s"].get<double>(), 0);
    // One bandwidth probe per measurement; the fraction is the median of the paired ratios.
    EXPECT_LE(d["read_gbps_min"].get<double>(), d["read_gbps"].get<double>());
    EXPECT_GE(d["read_gbps_max"].get<double>(), d["read_gbps"].get<double>());
    for (const auto& row : d["decode"]) {
        ASSERT_EQ(row["fraction_rounds"].size(), 1u);
        EXPECT_GT(row["fraction_of_read_bandwidth"].get<double>(), 0);
        EXPECT_DOUBLE_EQ(row["fraction_of_read_bandwidth"].get<double>(), row["fraction_rounds"][0].get<double>());
    }
    // Both activation modes run the AWQ kernels end to end (their accuracy is tested in engine/cpu);
    // the device line names the mode, int8 by default.
    for (const char* mode : {"", " --cpu-activations exact"}) {
        r = bench("--model " + folio::test::fixture_path("models/tiny-awq") + mode +
                      " --backend cpu --suite decode --rounds 1 --streams 2 --prefill-len 16 --decode-tokens 4 --bandwidth-mib 16 --json",
                  dir);
        ASSERT_EQ(r.status, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_GT(j["decode"][0]["tok_s"].get<double>(), 0);
        EXPECT_NE(j["device"].get<std::string>().find(*mode ? "exact activations" : "int8 activations"), std::string::npos) << j["device"];
    }
    r = bench("--model " + model() + " --suite compare --num-requests 4 --input-len 8 --output-len 4 --static-batch-size 2 --json", dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto c = nlohmann::json::parse(r.out);
    ASSERT_EQ(c["configs"].size(), 4u);
    EXPECT_EQ(c["configs"][3]["config"], "single stream");
    EXPECT_DOUBLE_EQ(c["configs"][3]["throughput_vs_single_stream"].get<double>(), 1.0);
    // The front-door suite: both ways of processing a request's input, each with its three windows.
    // A 4096-token context: the streams must outlast the windows (stories260K's 512 tokens run out in
    // well under a second on a quiet machine, and the history request then runs instead of waiting).
    r = bench("--model dummy:tiny --context 4096 --suite frontdoor --streams 2 --history-tokens 200 --window-s 0.05 --json", dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto f = nlohmann::json::parse(r.out);
    EXPECT_NEAR(f["history_tokens"].get<double>(), 200, 60);
    ASSERT_EQ(f["modes"].size(), 2u);
    EXPECT_EQ(f["modes"][0]["input_on"], "front-door thread");
    EXPECT_EQ(f["modes"][1]["input_on"], "step thread");
    for (const auto& m : f["modes"]) {
        EXPECT_GT(m["input_ms_median"].get<double>(), 0);
        ASSERT_EQ(m["windows"].size(), 3u);
        EXPECT_EQ(m["windows"][0]["window"], "before");
        EXPECT_GT(m["windows"][0]["steps"].get<int>(), 0);
        EXPECT_GT(m["windows"][1]["steps"].get<int>(), 0);  // at least the step that spans the submission
        EXPECT_GT(m["windows"][2]["steps"].get<int>(), 0);
        for (const auto& w : m["windows"]) EXPECT_LE(w["p50_ms"].get<double>(), w["max_ms"].get<double>());
    }
}

TEST(BenchCli, BadArgumentsAndFailedRequestsAreReportedClearly) {
    folio::test::TempDir dir;
    // Bad usage: the message, then the usage, on stderr; exit 2.
    BenchRun r = bench("--model " + model() + " --batching sideways", dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--batching takes continuous or static"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\n\nusage: folio-bench"), std::string::npos) << r.err;
    r = bench("--model " + model() + " --cpu-activations fp8", dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--cpu-activations takes one of int8, exact; got 'fp8'"), std::string::npos) << r.err;
    r = bench("--model " + model() + " --input-len 5:2", dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("MAX below MIN"), std::string::npos) << r.err;
    // What the world holds (a file, a model) is no usage error: exit 1, one line.
    r = bench("--model " + model() + " --prompts " + dir.file("missing.jsonl"), dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("cannot open the prompt file"), std::string::npos) << r.err;
    folio::test::write_file(dir.file("bad.jsonl"), "{\"prompt\": \"ok\"}\n{\"text\": 3}\n");
    r = bench("--model " + model() + " --prompts " + dir.file("bad.jsonl"), dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
    r = bench("--model " + model() + " --num-requests 2 --input-len 600 --json", dir);  // context is 512
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.err.find("context holds 512"), std::string::npos) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["errors"], 2);
    r = bench("--model " + model() + " --context 4096 --suite frontdoor", dir);
    EXPECT_EQ(r.status, 2);  // bad usage: an option that does not apply
    EXPECT_NE(r.err.find("--context applies to dummy: models only"), std::string::npos) << r.err;
    r = bench("--model " + model() + " --suite frontdoor --history-tokens 5000", dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("does not fit the model's context of 512 tokens"), std::string::npos) << r.err;
    r = bench("--model /nonexistent/model", dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_FALSE(r.err.empty());
}

}  // namespace
