// FP8 checkpoints: both fixture formats (AutoFP8 per-tensor 0-dim scales, compressed-tensors
// per-channel BF16 scales) load into FP8 linears whose weights equal dequantized.safetensors, the
// config variants parse, and every bad input is refused with an error naming the file, tensor or field.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/fp8.h"
#include "engine/core/half.h"
#include "engine/model/checkpoint.h"
#include "engine/model/fp8_config.h"
#include "engine/model/model_config.h"
#include "engine/model/weights_loader.h"
#include "tests/engine/model/checkpoint_edits.h"
#include "tests/support/linear_by_name.h"

namespace folio {
namespace {

using nlohmann::json;

void check_fixture_weights(const std::string& name, Fp8Config::WeightScales expect_scales) {
    const std::string dir = test::fixture_path("models/" + name);
    const ModelConfig c = load_model_config(dir);
    ASSERT_EQ(c.quant.method, QuantConfig::Method::Fp8);
    EXPECT_EQ(c.quant.fp8.weight_scales, expect_scales);
    Checkpoint ck(dir);
    ModelWeights w = load_weights(ck, c);
    SafetensorsFile deq(dir + "/dequantized.safetensors");
    int checked = 0;
    for (const auto& [tname, info] : deq.tensors()) {
        Linear* lin = test::linear_by_name(w, tname);
        ASSERT_NE(lin, nullptr) << tname;
        ASSERT_EQ(lin->kind, Linear::Kind::Fp8) << tname;
        ASSERT_EQ(info.shape, (std::vector<int64_t>{lin->out, lin->in}));
        const float* ref = static_cast<const float*>(info.data);
        for (int o = 0; o < lin->out; ++o)
            for (int i = 0; i < lin->in; ++i) {
                const float v = fp8_e4m3_to_f32(lin->fp8.data[size_t(o) * lin->in + i]) * lin->fp8.scales[o];
                ASSERT_EQ(v, ref[size_t(o) * lin->in + i]) << tname << " [" << o << ", " << i << "]";
            }
        ++checked;
    }
    EXPECT_EQ(checked, 7 * c.num_layers);
    EXPECT_EQ(w.lm_head.kind, Linear::Kind::Dense);  // ignored: tied to the fp32 embeddings
    EXPECT_FALSE(w.kv_scales_from_checkpoint);
    // One byte per weight plus a scale per row.
    EXPECT_EQ(linear_bytes(w.layers[0].gate_proj), uint64_t(172) * 64 + 172 * 4);
}

TEST(Fp8Checkpoint, AutoFp8FixtureWeightsEqualTheDequantizedReference) {
    check_fixture_weights("stories260K-fp8", Fp8Config::WeightScales::PerTensor);
}

TEST(Fp8Checkpoint, CompressedTensorsFixtureWeightsEqualTheDequantizedReference) {
    check_fixture_weights("stories260K-fp8-ct", Fp8Config::WeightScales::PerChannel);
}

TEST(Fp8Checkpoint, ConfigVariantsParse) {
    ModelConfig a = load_model_config(test::fixture_path("models/stories260K-fp8"));
    EXPECT_EQ(a.quant.fp8.source, Fp8Config::Source::AutoFp8);
    EXPECT_EQ(a.quant.fp8.activations, Fp8Config::Activations::DynamicPerTensor);
    EXPECT_TRUE(fp8_ignored(a.quant.fp8, "lm_head"));
    EXPECT_FALSE(fp8_ignored(a.quant.fp8, "model.layers.0.self_attn.q_proj"));
    ModelConfig ct = load_model_config(test::fixture_path("models/stories260K-fp8-ct"));
    EXPECT_EQ(ct.quant.fp8.source, Fp8Config::Source::CompressedTensors);
    EXPECT_EQ(ct.quant.fp8.activations, Fp8Config::Activations::DynamicPerToken);
    EXPECT_FALSE(ct.quant.fp8.kv_cache_scheme);

    json q = test::fixture_config("stories260K-fp8-ct")["quantization_config"];
    q["config_groups"]["group_0"]["input_activations"] = {{"num_bits", 8}, {"type", "float"}, {"strategy", "tensor"}, {"dynamic", false}};
    q["config_groups"]["group_0"]["weights"]["strategy"] = "tensor";
    q["ignore"] = {"re:.*lm_head", "re:model\\.layers\\.[0-2]\\.mlp\\.down_proj"};
    q["kv_cache_scheme"] = {{"num_bits", 8}, {"type", "float"}, {"strategy", "tensor"}, {"dynamic", false}, {"symmetric", true}};
    json c = test::fixture_config("stories260K");
    c["quantization_config"] = q;
    const ModelConfig v = parse_model_config(c.dump(), "config.json");
    EXPECT_EQ(v.quant.fp8.activations, Fp8Config::Activations::StaticPerTensor);
    EXPECT_EQ(v.quant.fp8.weight_scales, Fp8Config::WeightScales::PerTensor);
    EXPECT_TRUE(v.quant.fp8.kv_cache_scheme);
    EXPECT_TRUE(fp8_ignored(v.quant.fp8, "lm_head"));
    EXPECT_TRUE(fp8_ignored(v.quant.fp8, "model.layers.2.mlp.down_proj"));
    EXPECT_FALSE(fp8_ignored(v.quant.fp8, "model.layers.3.mlp.down_proj"));
    q["config_groups"]["group_0"].erase("input_activations");
    c["quantization_config"] = q;
    EXPECT_EQ(parse_model_config(c.dump(), "config.json").quant.fp8.activations, Fp8Config::Activations::WeightOnly);
}

TEST(Fp8Checkpoint, UnsupportedSchemesAreRefusedByName) {
    EXPECT_NE(test::quantization_config_error({{"quant_method", "fp8"}, {"weight_block_size", {128, 128}}}).find("weight_block_size"), std::string::npos);
    EXPECT_NE(test::quantization_config_error({{"quant_method", "fp8"}, {"activation_scheme", "sometimes"}}).find("activation_scheme"), std::string::npos);
    json q = test::fixture_config("stories260K-fp8-ct")["quantization_config"];
    json bad = q;
    bad["format"] = "int-quantized";
    EXPECT_NE(test::quantization_config_error(bad).find("format \"int-quantized\" is not supported"), std::string::npos) << test::quantization_config_error(bad);
    bad = q;
    bad["config_groups"]["group_0"]["weights"]["type"] = "int";
    EXPECT_NE(test::quantization_config_error(bad).find("8-bit int"), std::string::npos) << test::quantization_config_error(bad);
    bad = q;
    bad["config_groups"]["group_0"]["weights"]["strategy"] = "group";
    EXPECT_NE(test::quantization_config_error(bad).find("strategy \"group\" is not supported"), std::string::npos) << test::quantization_config_error(bad);
    bad = q;
    bad["config_groups"]["group_1"] = bad["config_groups"]["group_0"];
    EXPECT_NE(test::quantization_config_error(bad).find("2 groups"), std::string::npos) << test::quantization_config_error(bad);
    bad = q;
    bad["ignore"] = {"re:(unclosed"};
    EXPECT_NE(test::quantization_config_error(bad).find("not a valid regular expression"), std::string::npos) << test::quantization_config_error(bad);
}

TEST(Fp8Checkpoint, WrongScaleShapeIsNamed) {
    auto t = test::fixture_tensors("stories260K-fp8");
    auto* s = test::find_tensor(t, "model.layers.2.mlp.up_proj.weight_scale");
    ASSERT_NE(s, nullptr);
    s->shape = {2};
    s->bytes = test::f32_bytes({0.1f, 0.2f});
    std::string e = test::load_error(test::fixture_config("stories260K-fp8"), t);
    EXPECT_NE(e.find("'model.layers.2.mlp.up_proj.weight_scale' has shape [2], expected [] or [1]"), std::string::npos) << e;
    // Per-channel scales under a per-tensor config are refused too.
    t = test::fixture_tensors("stories260K-fp8");
    s = test::find_tensor(t, "model.layers.0.self_attn.q_proj.weight_scale");
    s->shape = {64, 1};
    s->bytes = test::f32_bytes(std::vector<float>(64, 0.01f));
    e = test::load_error(test::fixture_config("stories260K-fp8"), t);
    EXPECT_NE(e.find("per tensor"), std::string::npos) << e;
    // And a single scale where compressed-tensors says "channel".
    t = test::fixture_tensors("stories260K-fp8-ct");
    s = test::find_tensor(t, "model.layers.4.self_attn.o_proj.weight_scale");
    s->dtype = "F32";
    s->shape = {};
    s->bytes = test::f32_bytes({0.01f});
    e = test::load_error(test::fixture_config("stories260K-fp8-ct"), t);
    EXPECT_NE(e.find("'model.layers.4.self_attn.o_proj.weight_scale' has shape [] but config.json's weights strategy is \"channel\""),
              std::string::npos)
        << e;
}

TEST(Fp8Checkpoint, NanInfiniteAndNegativeScalesAreRefused) {
    for (float bad : {NAN, INFINITY, -0.5f}) {
        auto t = test::fixture_tensors("stories260K-fp8");
        test::find_tensor(t, "model.layers.1.self_attn.v_proj.weight_scale")->bytes = test::f32_bytes({bad});
        const std::string e = test::load_error(test::fixture_config("stories260K-fp8"), t);
        EXPECT_NE(e.find("'model.layers.1.self_attn.v_proj.weight_scale' holds"), std::string::npos) << e;
    }
    auto t = test::fixture_tensors("stories260K-fp8-ct");
    auto* s = test::find_tensor(t, "model.layers.3.mlp.down_proj.weight_scale");
    const uint16_t nan_bf16 = 0x7FC0;
    std::memcpy(s->bytes.data() + 2 * 17, &nan_bf16, 2);
    const std::string e = test::load_error(test::fixture_config("stories260K-fp8-ct"), t);
    EXPECT_NE(e.find("a NaN scale (nan at row 17)"), std::string::npos) << e;
}

TEST(Fp8Checkpoint, NanCodesInWeightsAreRefused) {
    auto t = test::fixture_tensors("stories260K-fp8");
    auto* w = test::find_tensor(t, "model.layers.0.mlp.gate_proj.weight");
    w->bytes[size_t(5 * 64 + 7)] = char(0xFF);
    const std::string e = test::load_error(test::fixture_config("stories260K-fp8"), t);
    EXPECT_NE(e.find("'model.layers.0.mlp.gate_proj.weight' holds 1 NaN or infinite FP8 code(s) (the first at row 5, column 7)"),
              std::string::npos)
        << e;
}

TEST(Fp8Checkpoint, F8TensorsWhereTheConfigSaysOtherwiseAreRefused) {
    // No quantization_config at all.
    json c = test::fixture_config("stories260K-fp8");
    c.erase("quantization_config");
    std::string e = test::load_error(c, test::fixture_tensors("stories260K-fp8"));
    EXPECT_NE(e.find("'model.layers.0.self_attn.q_proj.weight' is F8_E4M3 but config.json has no FP8 quantization_config"),
              std::string::npos)
        << e;
    // An ignored module stored in FP8.
    c = test::fixture_config("stories260K-fp8");
    c["quantization_config"]["ignored_layers"] = {"lm_head", "model.layers.1.mlp.up_proj"};
    e = test::load_error(c, test::fixture_tensors("stories260K-fp8"));
    EXPECT_NE(e.find("'model.layers.1.mlp.up_proj.weight' is F8_E4M3 but config.json's quantization_config leaves "
                     "model.layers.1.mlp.up_proj unquantized"),
              std::string::npos)
        << e;
    // An FP8 config over an fp32 checkpoint.
    c = test::fixture_config("stories260K-fp8");
    e = test::load_error(c, test::fixture_tensors("stories260K"));
    EXPECT_NE(e.find("is F32 but config.json's quantization_config says the linears are FP8"), std::string::npos) << e;
    // AWQ config over FP8 tensors.
    c = test::fixture_config("stories260K-fp8");
    c["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 32}, {"zero_point", true}, {"version", "gemm"},
                                {"modules_to_not_convert", {"self_attn", "mlp"}}};
    e = test::load_error(c, test::fixture_tensors("stories260K-fp8"));
    EXPECT_NE(e.find("is F8_E4M3 but config.json has no FP8 quantization_config"), std::string::npos) << e;
}

TEST(Fp8Checkpoint, MissingScalesAreNamed) {
    auto t = test::fixture_tensors("stories260K-fp8");
    t.erase(std::remove_if(t.begin(), t.end(), [](const auto& x) { return x.name == "model.layers.4.mlp.down_proj.weight_scale"; }),
            t.end());
    std::string e = test::load_error(test::fixture_config("stories260K-fp8"), t);
    EXPECT_NE(e.find("'model.layers.4.mlp.down_proj.weight_scale' is missing"), std::string::npos) << e;
    // A static activation scheme needs input_scale.
    json c = test::fixture_config("stories260K-fp8");
    c["quantization_config"]["activation_scheme"] = "static";
    e = test::load_error(c, test::fixture_tensors("stories260K-fp8"));
    EXPECT_NE(e.find("'model.layers.0.self_attn.q_proj.input_scale' is missing"), std::string::npos) << e;
}

TEST(Fp8Checkpoint, KvCacheScalesLoadAndAreChecked) {
    json c = test::fixture_config("stories260K-fp8-ct");
    c["quantization_config"]["kv_cache_scheme"] = {{"num_bits", 8}, {"type", "float"}, {"strategy", "tensor"}, {"dynamic", false},
                                                   {"symmetric", true}};
    auto t = test::fixture_tensors("stories260K-fp8-ct");
    std::string e = test::load_error(c, t);
    EXPECT_NE(e.find("although config.json has a kv_cache_scheme"), std::string::npos) << e;
    for (int l = 0; l < 5; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".self_attn.";
        t.push_back({p + "k_scale", "F32", {}, test::f32_bytes({0.01f * float(l + 1)})});
        t.push_back({p + "v_scale", "BF16", {1}, std::string("\x80\x3c", 2)});  // bf16 0x3C80 = 0.015625
    }
    test::TempDir d;
    test::write_file(d.file("config.json"), c.dump());
    test::write_safetensors(d.file("model.safetensors"), t);
    const ModelConfig mc = load_model_config(d.path());
    Checkpoint ck(d.path());
    const ModelWeights w = load_weights(ck, mc);
    EXPECT_TRUE(w.kv_scales_from_checkpoint);
    EXPECT_FLOAT_EQ(w.layers[2].k_scale, 0.03f);
    EXPECT_EQ(w.layers[4].v_scale, 0.015625f);
    // A NaN scale, and a layer without scales.
    test::find_tensor(t, "model.layers.3.self_attn.k_scale")->bytes = test::f32_bytes({NAN});
    e = test::load_error(c, t);
    EXPECT_NE(e.find("'model.layers.3.self_attn.k_scale' holds a NaN scale"), std::string::npos) << e;
    t.erase(std::remove_if(t.begin(), t.end(), [](const auto& x) { return x.name.rfind("model.layers.3.self_attn.", 0) == 0 && x.name.find("_scale") != std::string::npos && x.name.find("proj") == std::string::npos; }),
            t.end());
    e = test::load_error(c, t);
    EXPECT_NE(e.find("4 of 5 layers have k/v scales"), std::string::npos) << e;
}

}  // namespace
}  // namespace folio
