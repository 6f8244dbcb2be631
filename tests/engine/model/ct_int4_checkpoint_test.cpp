// compressed-tensors "pack-quantized" W4A16 checkpoints: both fixtures (symmetric with BF16 scales,
// asymmetric with packed zero points and F16 scales) load as AWQ linears whose every weight equals
// dequantized.safetensors exactly, the ignore list leaves the MLP dense, and every bad config field or
// tensor is refused with an error naming it.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/model/awq.h"
#include "engine/model/checkpoint.h"
#include "engine/model/compressed_tensors_config.h"
#include "engine/model/model_config.h"
#include "engine/model/weights_loader.h"
#include "tests/engine/model/checkpoint_edits.h"
#include "tests/support/linear_by_name.h"

namespace folio {
namespace {

using nlohmann::json;

const char* const kSym = "stories260K-w4a16-ct";
const char* const kZp = "stories260K-w4a16-ct-zp";

void check_fixture_weights(const std::string& name, bool zero_point) {
    const std::string dir = test::fixture_path("models/" + name);
    const ModelConfig c = load_model_config(dir);
    ASSERT_EQ(c.quant.method, QuantConfig::Method::Awq);
    EXPECT_TRUE(c.quant.pack_quantized);
    EXPECT_EQ(c.quant.group_size, 32);
    EXPECT_EQ(c.quant.zero_point, zero_point);
    EXPECT_TRUE(module_ignored(c.quant.ignore, "lm_head"));
    EXPECT_TRUE(module_ignored(c.quant.ignore, "model.layers.4.mlp.down_proj"));
    EXPECT_FALSE(module_ignored(c.quant.ignore, "model.layers.4.self_attn.o_proj"));
    Checkpoint ck(dir);
    ModelWeights w = load_weights(ck, c);
    SafetensorsFile deq(dir + "/dequantized.safetensors");
    int checked = 0;
    for (const auto& [tname, info] : deq.tensors()) {
        Linear* lin = test::linear_by_name(w, tname);
        ASSERT_NE(lin, nullptr) << tname;
        ASSERT_EQ(lin->kind, Linear::Kind::Awq) << tname;
        ASSERT_EQ(lin->awq.group_size, 32);
        ASSERT_EQ(info.shape, (std::vector<int64_t>{lin->out, lin->in}));
        std::vector<float> ref(size_t(lin->out) * size_t(lin->in));
        std::memcpy(ref.data(), info.data, ref.size() * 4);
        // Every weight, bit for bit: (q - z) * s of the repacked AWQ matrix is the script's value.
        for (int o = 0; o < lin->out; ++o)
            for (int i = 0; i < lin->in; ++i)
                ASSERT_EQ(awq_weight(lin->awq, i, o), ref[size_t(o) * lin->in + i]) << tname << " [" << o << ", " << i << "]";
        if (!zero_point) {  // symmetric: every zero is 8
            for (int gi = 0; gi < lin->in / 32; ++gi)
                for (int o = 0; o < lin->out; ++o)
                    ASSERT_EQ(awq_unpack(lin->awq.qzeros[int64_t(gi) * (lin->out / 8) + o / 8], o % 8), 8);
        }
        ++checked;
    }
    EXPECT_EQ(checked, 4 * c.num_layers);
    for (const auto& L : w.layers)  // the ignore list's pattern: the MLP stays dense
        for (const Linear* l : {&L.gate_proj, &L.up_proj, &L.down_proj}) EXPECT_EQ(l->kind, Linear::Kind::Dense);
    EXPECT_EQ(w.lm_head.kind, Linear::Kind::Dense);
}

// "re:" entries are matched as vLLM matches them, with Python's re.match: anchored at the start of the
// module name (not at its end), and in Python's syntax (named groups, lookbehind), which PCRE2 shares.
TEST(CompressedTensorsIgnore, PatternsFollowPythonReMatch) {
    const std::vector<std::string> ignore = {"re:.*lm_head", "re:(?P<layer>model\\.layers\\.1)\\.mlp",
                                             "re:model\\.layers\\.\\d+\\.self_attn\\..(?<!q)_proj$", "re:layers", "embed_tokens"};
    EXPECT_TRUE(module_ignored(ignore, "lm_head"));
    EXPECT_TRUE(module_ignored(ignore, "model.lm_head"));
    EXPECT_TRUE(module_ignored(ignore, "model.layers.1.mlp.down_proj"));   // a prefix match suffices
    EXPECT_FALSE(module_ignored(ignore, "model.layers.11.mlp.down_proj"));  // "1" then "\\." : not layer 11
    EXPECT_TRUE(module_ignored(ignore, "model.layers.7.self_attn.k_proj"));
    EXPECT_FALSE(module_ignored(ignore, "model.layers.7.self_attn.q_proj"));  // the lookbehind
    EXPECT_FALSE(module_ignored(ignore, "model.layers.7.mlp.up_proj"));      // "re:layers" is anchored at the start
    EXPECT_TRUE(module_ignored(ignore, "embed_tokens"));
    EXPECT_FALSE(module_ignored(ignore, "model.embed_tokens"));  // exact names are exact
}

TEST(CtInt4Checkpoint, SymmetricFixtureEqualsTheDequantizedReference) { check_fixture_weights(kSym, false); }

TEST(CtInt4Checkpoint, ZeroPointFixtureEqualsTheDequantizedReference) { check_fixture_weights(kZp, true); }

TEST(CtInt4Checkpoint, ZeroPointsActuallyVary) {
    // Guards the test above: with every zero at 8 the zero-point layout would go unchecked.
    const std::string dir = test::fixture_path(std::string("models/") + kZp);
    const ModelConfig c = load_model_config(dir);
    Checkpoint ck(dir);
    ModelWeights w = load_weights(ck, c);
    const AwqMatrix& m = w.layers[0].k_proj.awq;
    int not8 = 0, distinct_mask = 0;
    for (int gi = 0; gi < m.in / m.group_size; ++gi)
        for (int o = 0; o < m.out; ++o) {
            const int z = awq_unpack(m.qzeros[int64_t(gi) * (m.out / 8) + o / 8], o % 8);
            not8 += z != 8;
            distinct_mask |= 1 << z;
        }
    EXPECT_GT(not8, 0);
    EXPECT_GT(__builtin_popcount(unsigned(distinct_mask)), 2);
}

TEST(CtInt4Checkpoint, ConfigVariantsParse) {
    json q = test::fixture_config(kSym)["quantization_config"];
    q["config_groups"]["group_0"]["weights"]["actorder"] = "weight";  // reordered at quantize time: no g_idx
    q["config_groups"]["group_0"]["weights"]["group_size"] = 128;
    q["config_groups"]["group_0"].erase("format");  // the top-level format is enough
    json c = test::fixture_config("stories260K");
    c["quantization_config"] = q;
    const ModelConfig v = parse_model_config(c.dump(), "config.json");
    EXPECT_TRUE(v.quant.pack_quantized);
    EXPECT_EQ(v.quant.group_size, 128);
    q.erase("format");  // and the group's alone too
    q["config_groups"]["group_0"]["format"] = "pack-quantized";
    q["config_groups"]["group_0"]["weights"].erase("symmetric");  // compressed-tensors' default: symmetric
    c["quantization_config"] = q;
    const ModelConfig g = parse_model_config(c.dump(), "config.json");
    EXPECT_TRUE(g.quant.pack_quantized);
    EXPECT_FALSE(g.quant.zero_point);
}

TEST(CtInt4Checkpoint, UnsupportedSchemesAreRefusedByName) {
    const json q = test::fixture_config(kZp)["quantization_config"];
    const auto with = [&](const std::string& key, const json& value) {
        json b = q;
        b["config_groups"]["group_0"]["weights"][key] = value;
        return test::quantization_config_error(b);
    };
    std::string e = with("num_bits", 8);
    EXPECT_NE(e.find("group_0.weights.num_bits is 8"), std::string::npos) << e;
    e = with("type", "float");
    EXPECT_NE(e.find("group_0.weights.type is \"float\""), std::string::npos) << e;
    e = with("strategy", "channel");
    EXPECT_NE(e.find("group_0.weights.strategy is \"channel\""), std::string::npos) << e;
    e = with("strategy", "tensor");
    EXPECT_NE(e.find("strategy is \"tensor\""), std::string::npos) << e;
    e = with("group_size", 96);
    EXPECT_NE(e.find("group_0.weights.group_size is 96: the 4-bit kernels run groups of 32, 64 or 128"), std::string::npos) << e;
    e = with("group_size", nullptr);
    EXPECT_NE(e.find("group_size must be an integer"), std::string::npos) << e;
    e = with("actorder", "group");
    EXPECT_NE(e.find("group_0.weights.actorder is \"group\""), std::string::npos) << e;
    e = with("actorder", true);
    EXPECT_NE(e.find("actorder is true"), std::string::npos) << e;
    e = with("dynamic", true);
    EXPECT_NE(e.find("dynamic is true"), std::string::npos) << e;
    json b = q;
    b["config_groups"]["group_0"]["input_activations"] = {{"num_bits", 8}, {"type", "int"}, {"strategy", "token"}, {"dynamic", true}};
    e = test::quantization_config_error(b);
    EXPECT_NE(e.find("input_activations is set: quantized activations (W4A8, W4A4) are not supported"), std::string::npos) << e;
    b = q;
    b["format"] = "mixed-precision";
    e = test::quantization_config_error(b);
    EXPECT_NE(e.find("format \"mixed-precision\""), std::string::npos) << e;
    b = q;
    b["config_groups"]["group_0"]["format"] = "naive-quantized";
    e = test::quantization_config_error(b);
    EXPECT_NE(e.find("group_0.format is \"naive-quantized\""), std::string::npos) << e;
    b = q;
    b["config_groups"]["group_1"] = b["config_groups"]["group_0"];
    e = test::quantization_config_error(b);
    EXPECT_NE(e.find("2 groups"), std::string::npos) << e;
    b = q;
    b["config_groups"]["group_0"]["targets"] = {"Embedding"};
    e = test::quantization_config_error(b);
    EXPECT_NE(e.find("targets must include \"Linear\""), std::string::npos) << e;
    b = q;
    b["kv_cache_scheme"] = {{"num_bits", 8}, {"type", "float"}, {"strategy", "tensor"}};
    e = test::quantization_config_error(b);
    EXPECT_NE(e.find("kv_cache_scheme is set"), std::string::npos) << e;
    b = q;
    b["ignore"] = {"re:(unclosed"};
    e = test::quantization_config_error(b);
    EXPECT_NE(e.find("not a valid regular expression"), std::string::npos) << e;
    b = q;
    b["config_groups"]["group_0"].erase("weights");
    e = test::quantization_config_error(b);
    EXPECT_NE(e.find("group_0.weights is missing"), std::string::npos) << e;
}

TEST(CtInt4Checkpoint, MissingOrMisshapenTensorsAreNamed) {
    const json cfg = test::fixture_config(kZp);
    const std::string m = "model.layers.1.self_attn.k_proj";
    auto t = test::fixture_tensors(kZp);
    test::erase_tensor(t, m + ".weight_scale");
    std::string e = test::load_error(cfg, t);
    EXPECT_NE(e.find("tensor '" + m + ".weight_scale' is missing"), std::string::npos) << e;

    t = test::fixture_tensors(kZp);
    test::find_tensor(t, m + ".weight_scale")->shape = {2, 32};  // [out, groups] is [32, 2]
    e = test::load_error(cfg, t);
    EXPECT_NE(e.find(m + ".weight_scale"), std::string::npos) << e;
    EXPECT_NE(e.find("[32, 2]"), std::string::npos) << e;

    t = test::fixture_tensors(kZp);
    test::find_tensor(t, m + ".weight_packed")->shape = {64, 4};  // [out, in/8] is [32, 8]
    e = test::load_error(cfg, t);
    EXPECT_NE(e.find(m + ".weight_packed"), std::string::npos) << e;
    EXPECT_NE(e.find("[32, 8]"), std::string::npos) << e;

    t = test::fixture_tensors(kZp);
    test::erase_tensor(t, m + ".weight_zero_point");
    e = test::load_error(cfg, t);
    EXPECT_NE(e.find("tensor '" + m + ".weight_zero_point' is missing"), std::string::npos) << e;
    EXPECT_NE(e.find("not symmetric"), std::string::npos) << e;

    t = test::fixture_tensors(kZp);
    test::find_tensor(t, m + ".weight_zero_point")->shape = {2, 4};  // the unpacked [out, groups] would be [32, 2]; packed is [4, 2]
    e = test::load_error(cfg, t);
    EXPECT_NE(e.find(m + ".weight_zero_point"), std::string::npos) << e;
    EXPECT_NE(e.find("[4, 2]"), std::string::npos) << e;

    t = test::fixture_tensors(kZp);
    int64_t wrong[2] = {32, 128};
    test::find_tensor(t, m + ".weight_shape")->bytes = std::string(reinterpret_cast<const char*>(wrong), 16);
    e = test::load_error(cfg, t);
    EXPECT_NE(e.find("'" + m + ".weight_shape' says [32, 128] but config.json gives this linear [32, 64]"), std::string::npos) << e;

    t = test::fixture_tensors(kZp);
    t.push_back({m + ".weight_g_idx", "I32", {64}, std::string(64 * 4, '\0')});
    e = test::load_error(cfg, t);
    EXPECT_NE(e.find("'" + m + ".weight_g_idx' permutes the input columns"), std::string::npos) << e;

    // A module the config quantizes but the checkpoint stores unquantized.
    t = test::fixture_tensors(kZp);
    test::erase_tensor(t, m + ".weight_packed");
    t.push_back({m + ".weight", "F32", {32, 64}, std::string(32 * 64 * 4, '\0')});
    e = test::load_error(cfg, t);
    EXPECT_NE(e.find("'" + m + ".weight_packed' is missing: config.json says compressed-tensors pack-quantized"), std::string::npos) << e;

    // And the other way: packed weights under a module the ignore list names.
    json c2 = cfg;
    c2["quantization_config"]["ignore"].push_back("re:.*k_proj$");
    e = test::load_error(c2, test::fixture_tensors(kZp));
    EXPECT_NE(e.find("holds packed int4 weights but config.json leaves model.layers.0.self_attn.k_proj unquantized"), std::string::npos) << e;
}

TEST(CtInt4Checkpoint, ShapesTheKernelsCannotRunAreNamed) {
    // A group of 128 does not divide stories260K's 64 input features.
    json c = test::fixture_config(kSym);
    c["quantization_config"]["config_groups"]["group_0"]["weights"]["group_size"] = 128;
    std::string e = test::load_error(c, test::fixture_tensors(kSym));
    EXPECT_NE(e.find("model.layers.0.self_attn.q_proj: group size 128 does not divide its 64 input features"), std::string::npos) << e;
    // The MLP's 172 output features cannot be packed eight to an int32 along the output.
    c = test::fixture_config(kSym);
    c["quantization_config"]["ignore"] = {"lm_head"};
    e = test::load_error(c, test::fixture_tensors(kSym));
    EXPECT_NE(e.find("model.layers.0.mlp.gate_proj has 172 output features, not a multiple of 8"), std::string::npos) << e;
}

TEST(CtInt4Checkpoint, BadScalesAreNamed) {
    const std::string m = "model.layers.3.self_attn.o_proj";
    auto t = test::fixture_tensors(kZp);  // F16 scales
    auto* s = test::find_tensor(t, m + ".weight_scale");
    const uint16_t inf = 0x7c00;
    std::memcpy(s->bytes.data() + 2 * 5, &inf, 2);
    std::string e = test::load_error(test::fixture_config(kZp), t);
    EXPECT_NE(e.find("'" + m + ".weight_scale' holds the scale inf at index 5"), std::string::npos) << e;
    t = test::fixture_tensors(kSym);  // BF16 scales: 1e6 is past fp16's range
    s = test::find_tensor(t, m + ".weight_scale");
    const uint16_t big = f32_to_bf16(1.0e6f);  // 999424 in BF16
    std::memcpy(s->bytes.data(), &big, 2);
    e = test::load_error(test::fixture_config(kSym), t);
    EXPECT_NE(e.find("'" + m + ".weight_scale' holds the scale 999424 at index 0"), std::string::npos) << e;
    EXPECT_NE(e.find("below 65504"), std::string::npos) << e;
}

}  // namespace
}  // namespace folio
