// Loading a checkpoint folder: config.json checks, tensors present with the shapes the config
// implies, sharded layouts, AWQ settings, and the clear errors for every kind of broken folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "engine/core/error.h"
#include "engine/model/checkpoint.h"
#include "engine/model/dummy_model.h"
#include "engine/model/model_config.h"
#include "engine/model/rope.h"
#include "engine/model/weights_loader.h"
#include "tests/engine/model/safetensors_writer.h"

namespace folio {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The stories260K tensors as RawTensors, so tests can write altered copies.
std::vector<test::RawTensor> stories_tensors() {
    SafetensorsFile f(test::fixture_path("models/stories260K/model.safetensors"));
    std::vector<test::RawTensor> out;
    for (const auto& [name, t] : f.tensors())
        out.push_back({name, std::string(dtype_name(t.dtype)), t.shape, std::string(static_cast<const char*>(t.data), t.nbytes)});
    return out;
}

json stories_config() { return json::parse(test::read_file(test::fixture_path("models/stories260K/config.json"))); }

// A model folder with the given config and tensors; returns the error of loading its weights ("" on success).
std::string load_error(const json& config, const std::vector<test::RawTensor>& tensors, ModelWeights* out = nullptr) {
    test::TempDir d;
    test::write_file(d.file("config.json"), config.dump());
    test::write_safetensors(d.file("model.safetensors"), tensors);
    try {
        ModelConfig c = load_model_config(d.path());
        Checkpoint ck(d.path());
        ModelWeights w = load_weights(ck, c);
        if (out) *out = w;
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

std::string config_error(const std::string& text) {
    try {
        parse_model_config(text, "config.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(Checkpoint, LoadsFixtureFolders) {
    ModelConfig c = load_model_config(test::fixture_path("models/stories260K"));
    EXPECT_EQ(c.architecture, "LlamaForCausalLM");
    EXPECT_EQ(c.num_kv_heads, 4);
    EXPECT_EQ(c.head_dim, 8);
    EXPECT_TRUE(c.tie_word_embeddings);
    Checkpoint ck(test::fixture_path("models/stories260K"));
    ModelWeights w = load_weights(ck, c);
    EXPECT_EQ(w.layers.size(), 5u);
    EXPECT_EQ(w.lm_head.dense.data, w.embed_tokens.data);  // tied

    ModelConfig a = load_model_config(test::fixture_path("models/tiny-awq"));
    EXPECT_EQ(a.quant.method, QuantConfig::Method::Awq);
    EXPECT_EQ(a.quant.group_size, 128);
    Checkpoint ack(test::fixture_path("models/tiny-awq"));
    ModelWeights aw = load_weights(ack, a);
    EXPECT_EQ(aw.layers[0].q_proj.kind, Linear::Kind::Awq);
    EXPECT_EQ(aw.layers[0].down_proj.awq.in, 768);
    // 4-bit weights: the packed linears are about an eighth of their fp32 size.
    EXPECT_LT(linear_bytes(aw.layers[0].gate_proj), uint64_t(128) * 768 * 4 / 6);
}

TEST(Checkpoint, MissingTensorIsNamed) {
    auto t = stories_tensors();
    t.erase(std::remove_if(t.begin(), t.end(), [](const auto& x) { return x.name == "model.layers.3.mlp.up_proj.weight"; }), t.end());
    const std::string e = load_error(stories_config(), t);
    EXPECT_NE(e.find("'model.layers.3.mlp.up_proj.weight' is missing"), std::string::npos) << e;
}

TEST(Checkpoint, WrongShapeIsNamed) {
    auto t = stories_tensors();
    for (auto& x : t)
        if (x.name == "model.layers.1.self_attn.k_proj.weight") x.shape = {64, 32};  // same bytes, wrong shape
    const std::string e = load_error(stories_config(), t);
    EXPECT_NE(e.find("'model.layers.1.self_attn.k_proj.weight' has shape [64, 32], expected [32, 64]"), std::string::npos) << e;
}

TEST(Checkpoint, WrongDtypeIsNamed) {
    auto t = stories_tensors();
    for (auto& x : t)
        if (x.name == "model.norm.weight") x.dtype = "I32";
    const std::string e = load_error(stories_config(), t);
    EXPECT_NE(e.find("'model.norm.weight' has dtype I32, expected F32 or F16 or BF16"), std::string::npos) << e;
}

TEST(Checkpoint, UntiedModelNeedsLmHead) {
    auto c = stories_config();
    c["tie_word_embeddings"] = false;
    const std::string e = load_error(c, stories_tensors());
    EXPECT_NE(e.find("'lm_head.weight' is missing"), std::string::npos) << e;
}

TEST(Checkpoint, ShardedWithIndex) {
    test::TempDir d;
    auto t = stories_tensors();
    const size_t half = t.size() / 2;
    std::vector<test::RawTensor> a(t.begin(), t.begin() + long(half)), b(t.begin() + long(half), t.end());
    test::write_safetensors(d.file("model-00001-of-00002.safetensors"), a);
    test::write_safetensors(d.file("model-00002-of-00002.safetensors"), b);
    json index = {{"metadata", json::object()}, {"weight_map", json::object()}};
    for (const auto& x : a) index["weight_map"][x.name] = "model-00001-of-00002.safetensors";
    for (const auto& x : b) index["weight_map"][x.name] = "model-00002-of-00002.safetensors";
    test::write_file(d.file("model.safetensors.index.json"), index.dump());
    test::write_file(d.file("config.json"), stories_config().dump());
    Checkpoint ck(d.path());
    ModelWeights w = load_weights(ck, load_model_config(d.path()));
    EXPECT_EQ(w.layers.size(), 5u);
    EXPECT_EQ(ck.tensor_names().size(), t.size());

    // A shard the index names but the folder lacks.
    fs::remove(d.file("model-00002-of-00002.safetensors"));
    try {
        Checkpoint bad(d.path());
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("model-00002-of-00002.safetensors, which is missing"), std::string::npos) << e.what();
    }
    // The same tensor in two shards.
    test::write_safetensors(d.file("model-00002-of-00002.safetensors"), {a[0]});
    try {
        Checkpoint dup(d.path());
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("appears in both"), std::string::npos) << e.what();
    }
}

TEST(Checkpoint, NoWeightsFile) {
    test::TempDir d;
    test::write_file(d.file("config.json"), stories_config().dump());
    test::write_file(d.file("pytorch_model.bin"), "x");
    try {
        Checkpoint ck(d.path());
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("convert them to safetensors"), std::string::npos) << e.what();
    }
}

TEST(ModelConfig, BadConfigs) {
    EXPECT_NE(config_error("{ not json").find("not valid JSON"), std::string::npos);
    auto c = stories_config();
    c.erase("hidden_size");
    EXPECT_NE(config_error(c.dump()).find("missing \"hidden_size\""), std::string::npos);
    c = stories_config();
    c["architectures"] = {"GPT2LMHeadModel"};
    EXPECT_NE(config_error(c.dump()).find("unknown architecture \"GPT2LMHeadModel\""), std::string::npos);
    c = stories_config();
    c["num_key_value_heads"] = 3;
    EXPECT_NE(config_error(c.dump()).find("not a multiple of num_key_value_heads 3"), std::string::npos);
    c = stories_config();
    c["num_hidden_layers"] = -2;
    EXPECT_NE(config_error(c.dump()).find("\"num_hidden_layers\" must be a positive integer"), std::string::npos);
    c = stories_config();
    c["hidden_act"] = "gelu";
    EXPECT_NE(config_error(c.dump()).find("hidden_act \"gelu\""), std::string::npos);
    c = stories_config();
    c["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}};
    EXPECT_NE(config_error(c.dump()).find("\"yarn\" is not supported"), std::string::npos);
    c = stories_config();
    c["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 4}};
    EXPECT_NE(config_error(c.dump()).find("\"gptq\" is not supported"), std::string::npos);
    c = stories_config();
    c["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"version", "gemv"}};
    EXPECT_NE(config_error(c.dump()).find("only the GEMM packing"), std::string::npos);
    EXPECT_EQ(config_error(stories_config().dump()), "");
}

TEST(ModelConfig, MistralAndLlama31Settings) {
    json c = {{"architectures", {"MistralForCausalLM"}}, {"model_type", "mistral"}, {"hidden_size", 4096},
              {"intermediate_size", 14336}, {"num_hidden_layers", 32}, {"num_attention_heads", 32},
              {"num_key_value_heads", 8}, {"vocab_size", 32000}, {"sliding_window", 4096}, {"rope_theta", 1000000.0},
              {"eos_token_id", 2}, {"torch_dtype", "bfloat16"}};
    ModelConfig m = parse_model_config(c.dump(), "config.json");
    EXPECT_EQ(m.head_dim, 128);
    EXPECT_EQ(m.sliding_window, 4096);
    EXPECT_EQ(m.torch_dtype, DType::BF16);
    EXPECT_FALSE(m.tie_word_embeddings);

    json l = {{"architectures", {"LlamaForCausalLM"}}, {"hidden_size", 4096}, {"intermediate_size", 14336},
              {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"vocab_size", 128256},
              {"rope_theta", 500000.0}, {"eos_token_id", {128001, 128008, 128009}},
              {"rope_scaling", {{"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0},
                                {"original_max_position_embeddings", 8192}, {"rope_type", "llama3"}}}};
    ModelConfig ll = parse_model_config(l.dump(), "config.json");
    ASSERT_TRUE(ll.rope_scaling);
    EXPECT_EQ(ll.eos_token_ids, (std::vector<int>{128001, 128008, 128009}));
    // Llama-3.1 inverse frequencies (transformers' _compute_llama3_parameters): the highest
    // frequencies are unchanged, the lowest divided by the factor, the middle band interpolated.
    const auto inv = rope_inv_freq(ll);
    ASSERT_EQ(inv.size(), 64u);
    EXPECT_FLOAT_EQ(inv[0], 1.0f);
    EXPECT_NEAR(inv[10], std::pow(500000.0, -20.0 / 128.0), 1e-6 * inv[10]);            // wavelen < 2048: unchanged
    EXPECT_NEAR(inv[63], std::pow(500000.0, -126.0 / 128.0) / 8.0, 1e-6 * inv[63]);    // wavelen > 8192: / factor
    const double f = std::pow(500000.0, -2.0 * 32 / 128.0), wavelen = 2 * M_PI / f;  // in the smooth band
    ASSERT_TRUE(wavelen > 2048 && wavelen < 8192);
    const double smooth = (8192.0 / wavelen - 1.0) / 3.0;
    EXPECT_NEAR(inv[32], (1 - smooth) * f / 8.0 + smooth * f, 1e-6 * f);
}

TEST(ModelConfig, OnlyMistralCheckpointsGetTheirSlidingWindow) {
    ModelConfig c;
    c.architecture = "MistralForCausalLM";
    c.max_position_embeddings = 32768;
    EXPECT_EQ(attention_window(c), 0);  // v0.2+: "sliding_window": null
    c.sliding_window = 4096;
    EXPECT_EQ(attention_window(c), 4096);  // v0.1
    c.max_position_embeddings = 4096;
    EXPECT_EQ(attention_window(c), 0);  // a window as long as the context changes nothing
    c.architecture = "LlamaForCausalLM";
    c.max_position_embeddings = 32768;
    EXPECT_EQ(attention_window(c), 0);  // transformers' Llama ignores the field
}

TEST(ModelConfig, AwqSideFileAndGroupSize) {
    test::TempDir d;
    // TheBloke-style: settings in quant_config.json, none in config.json.
    json c = stories_config();
    test::write_file(d.file("config.json"), c.dump());
    test::write_file(d.file("quant_config.json"), R"({"zero_point": true, "q_group_size": 128, "w_bit": 4, "version": "GEMM"})");
    ModelConfig m = load_model_config(d.path());
    EXPECT_EQ(m.quant.method, QuantConfig::Method::Awq);
    EXPECT_EQ(m.quant.group_size, 128);
    // Group size 128 does not divide stories260K's hidden size 64: a clear error at load.
    auto t = stories_tensors();
    test::write_safetensors(d.file("model.safetensors"), t);
    try {
        Checkpoint ck(d.path());
        load_weights(ck, m);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not divide"), std::string::npos) << e.what();
    }
    test::write_file(d.file("quant_config.json"), R"({"bits": 4, "group_size": 128, "desc_act": true})");
    EXPECT_THROW(load_model_config(d.path()), Error);
}

TEST(ModelConfig, MissingFolderAndConfig) {
    test::TempDir d;
    EXPECT_THROW(load_model_config(d.file("nope")), Error);
    try {
        load_model_config(d.path());
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no config.json"), std::string::npos);
    }
}

TEST(DummyModels, ShapesAndDeterminism) {
    ModelConfig c = dummy_config("llama-2-7b-awq");
    EXPECT_EQ(c.hidden_size, 4096);
    EXPECT_EQ(c.quant.method, QuantConfig::Method::Awq);
    EXPECT_EQ(dummy_config("mistral-7b").num_kv_heads, 8);
    EXPECT_EQ(dummy_config("tiny-bf16").torch_dtype, DType::BF16);
    EXPECT_THROW(dummy_config("gpt-5"), Error);
    ModelConfig t = dummy_config("tiny-awq-g64");
    ModelWeights a = dummy_weights(t, 5), b = dummy_weights(t, 5), other = dummy_weights(t, 6);
    const auto& qa = a.layers[1].up_proj.awq;
    const auto& qb = b.layers[1].up_proj.awq;
    ASSERT_EQ(qa.group_size, 64);
    EXPECT_EQ(std::memcmp(qa.qweight, qb.qweight, size_t(qa.in) * qa.out / 2), 0);
    EXPECT_NE(std::memcmp(qa.qweight, other.layers[1].up_proj.awq.qweight, size_t(qa.in) * qa.out / 2), 0);
    EXPECT_EQ(a.bytes_per_token, weight_bytes_per_token(a));
}

}  // namespace
}  // namespace folio
