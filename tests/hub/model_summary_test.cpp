// What a folder holds, read from config.json and the safetensors headers, against the engine's own
// reading of the same fixtures; broken folders get a reason instead of an exception.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/hub/model_summary.h"
#include "engine/model/safetensors.h"
#include "tests/support/fixtures.h"

namespace folio::hub {
namespace {

namespace fs = std::filesystem;
using test::fixture_path;
using test::TempDir;

TEST(ModelSummary, DenseFixtureMatchesTheEnginesOwnReading) {
    const std::string dir = fixture_path("models/stories260K");
    const ModelSummary s = summarize_model(dir);
    EXPECT_EQ(s.problem, "");
    EXPECT_EQ(s.family, "Llama");
    EXPECT_EQ(s.architecture, "LlamaForCausalLM");
    EXPECT_EQ(s.format, "fp32");
    const SafetensorsFile f(dir + "/model.safetensors");  // the engine's validating reader
    uint64_t numel = 0, bytes = 0;
    for (const auto& [name, t] : f.tensors()) {
        numel += uint64_t(t.numel());
        bytes += t.nbytes;
    }
    EXPECT_EQ(s.parameters, numel);
    EXPECT_EQ(s.weight_bytes, bytes);
    EXPECT_EQ(s.f32_weight_bytes, bytes);
    EXPECT_GT(s.num_layers, 0);
    EXPECT_GT(s.max_context, 0);
}

TEST(ModelSummary, AwqCountsPackedWeightsUnpacked) {
    const ModelSummary s = summarize_model(fixture_path("models/tiny-awq"));
    EXPECT_EQ(s.problem, "");
    EXPECT_EQ(s.format, "AWQ 4-bit g128");
    // dequantized.safetensors holds the linear layers in dense form; the rest (embeddings, norms)
    // is stored as it is.
    const SafetensorsFile dense(fixture_path("models/tiny-awq/dequantized.safetensors"));
    const SafetensorsFile packed(fixture_path("models/tiny-awq/model.safetensors"));
    uint64_t numel = 0;
    for (const auto& [name, t] : dense.tensors()) numel += uint64_t(t.numel());
    auto ends_with = [](const std::string& s, const std::string& x) { return s.size() >= x.size() && s.substr(s.size() - x.size()) == x; };
    for (const auto& [name, t] : packed.tensors())
        if (!ends_with(name, ".qweight") && !ends_with(name, ".qzeros") && !ends_with(name, ".scales")) numel += uint64_t(t.numel());
    EXPECT_EQ(s.parameters, numel);
    EXPECT_EQ(s.num_kv_heads, 4);
    EXPECT_EQ(s.head_dim, 16);
}

// compressed-tensors W4A16: the engine loads it (no problem), and its packed weights count eight
// parameters per int32 like AWQ's (stories260K has 260K parameters whatever the storage).
TEST(ModelSummary, CompressedTensorsInt4LoadsAndCountsPackedWeights) {
    for (const char* name : {"models/stories260K-w4a16-ct", "models/stories260K-w4a16-ct-zp"}) {
        const ModelSummary s = summarize_model(fixture_path(name));
        EXPECT_EQ(s.problem, "") << name;
        EXPECT_EQ(s.format, "INT4 (compressed-tensors)") << name;
        EXPECT_EQ(s.parameters, summarize_model(fixture_path("models/stories260K")).parameters) << name;
    }
}

TEST(ModelSummary, Fp8FormatsAndOtherFamilies) {
    EXPECT_EQ(summarize_model(fixture_path("models/stories260K-fp8")).format, "FP8");
    EXPECT_EQ(summarize_model(fixture_path("models/stories260K-fp8-ct")).format, "FP8 (compressed-tensors)");
    const ModelSummary q3 = summarize_model(fixture_path("models/tiny-qwen3"));
    EXPECT_EQ(q3.family, "Qwen3");
    EXPECT_GT(q3.parameters, 0u);
    EXPECT_EQ(summarize_model(fixture_path("models/tiny-qwen2")).family, "Qwen2");
}

TEST(ModelSummary, BrokenFoldersSayWhy) {
    TempDir none;
    EXPECT_NE(summarize_model(none.path()).problem.find("has no config.json"), std::string::npos);

    TempDir gguf;
    test::write_file(gguf.file("model-Q4_K_M.gguf"), "GGUF");
    const ModelSummary g = summarize_model(gguf.path());
    EXPECT_EQ(g.format, "GGUF");
    EXPECT_NE(g.problem.find("GGUF"), std::string::npos) << g.problem;

    TempDir bad;
    test::write_file(bad.file("config.json"), "{not json");
    EXPECT_NE(summarize_model(bad.path()).problem.find("not valid JSON"), std::string::npos);

    TempDir partial;
    fs::copy_file(fixture_path("models/stories260K/config.json"), partial.file("config.json"));
    fs::copy_file(fixture_path("models/stories260K/model.safetensors"), partial.file("model-00001-of-00002.safetensors"));
    test::write_file(partial.file("model.safetensors.index.json"),
                     R"({"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}})");
    const ModelSummary p = summarize_model(partial.path());
    EXPECT_EQ(p.missing_files, std::vector<std::string>{"model-00002-of-00002.safetensors"});
    EXPECT_NE(p.problem.find("the download is incomplete"), std::string::npos) << p.problem;

    TempDir truncated;
    fs::copy_file(fixture_path("models/stories260K/config.json"), truncated.file("config.json"));
    test::write_file(truncated.file("model.safetensors"), std::string("\xff\xff\x00\x00\x00\x00\x00\x00{", 9));
    EXPECT_NE(summarize_model(truncated.path()).problem.find("safetensors header"), std::string::npos);
}

}  // namespace
}  // namespace folio::hub
