// folio-cli export's engine side: a float model written as a Hugging Face folder loads back with the
// very same bytes, or converted to the dtype asked for; quantized to AWQ it loads back within half a quantization step of every weight
// (round to nearest, AutoAWQ's formulas); bad requests are refused before anything is written.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/model/awq.h"
#include "engine/model/awq_quantize.h"
#include "engine/model/dummy_model.h"
#include "engine/model/model.h"
#include "engine/model/model_export.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

// dummy:tiny with an intermediate size the AWQ groups divide (tiny's 688 is not a multiple of 32).
std::unique_ptr<Model> tiny_model(int intermediate) {
    auto m = std::make_unique<Model>();
    m->spec = m->name = "dummy:tiny";
    m->config = dummy_config("tiny");
    m->config.intermediate_size = intermediate;
    m->weights = dummy_weights(m->config, 7);
    return m;
}

ExportOptions options_in(const test::TempDir& t, const std::string& name, bool awq) {
    ExportOptions o;
    o.out_dir = t.file(name);
    o.awq = awq;
    o.tokenizer_model = test::fixture_path("tokenizers/llama2");
    return o;
}

bool same_bytes(const DenseMatrix& a, const DenseMatrix& b) {
    return a.dtype == b.dtype && a.rows == b.rows && a.cols == b.cols &&
           std::memcmp(a.data, b.data, size_t(a.rows) * size_t(a.cols) * dtype_size(a.dtype)) == 0;
}

TEST(ModelExport, FloatFolderLoadsBackBitForBit) {
    test::TempDir t;
    const auto m = tiny_model(688);
    export_model(*m, options_in(t, "tiny", false));
    const auto back = load_model(t.file("tiny"));
    EXPECT_EQ(back->config.hidden_size, m->config.hidden_size);
    EXPECT_EQ(back->config.num_kv_heads, m->config.num_kv_heads);
    EXPECT_EQ(back->config.torch_dtype, DType::F16);
    EXPECT_EQ(back->tokenizer->vocab_size(), 32000);
    ASSERT_EQ(back->weights.layers.size(), m->weights.layers.size());
    for (size_t l = 0; l < m->weights.layers.size(); ++l) {
        const LayerWeights &a = m->weights.layers[l], &b = back->weights.layers[l];
        for (auto [x, y] : {std::pair{&a.q_proj, &b.q_proj}, {&a.k_proj, &b.k_proj}, {&a.v_proj, &b.v_proj}, {&a.o_proj, &b.o_proj},
                            {&a.gate_proj, &b.gate_proj}, {&a.up_proj, &b.up_proj}, {&a.down_proj, &b.down_proj}})
            EXPECT_TRUE(same_bytes(x->dense, y->dense)) << "layer " << l;
    }
    EXPECT_TRUE(same_bytes(m->weights.lm_head.dense, back->weights.lm_head.dense));
    EXPECT_EQ(std::memcmp(m->weights.embed_tokens.data, back->weights.embed_tokens.data, size_t(32000) * 256 * 2), 0);
}

// --dtype: every float tensor converted element by element (round to nearest even), config.json's
// torch_dtype saying so; fp16 -> fp32 is exact and fp32 -> fp16 gives the original bits back.
TEST(ModelExport, FloatsConvertToTheDtypeAskedFor) {
    test::TempDir t;
    const auto m = tiny_model(688);
    const auto f16 = [](const void* p, size_t i) { return f16_to_f32(static_cast<const uint16_t*>(p)[i]); };
    ExportOptions o = options_in(t, "bf16", false);
    o.dtype = DType::BF16;
    export_model(*m, o);
    const auto bf = load_model(t.file("bf16"));
    EXPECT_EQ(bf->config.torch_dtype, DType::BF16);
    const DenseMatrix &src = m->weights.layers[1].gate_proj.dense, &got = bf->weights.layers[1].gate_proj.dense;
    ASSERT_EQ(got.dtype, DType::BF16);
    const size_t n = size_t(src.rows) * size_t(src.cols);
    size_t changed = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint16_t want = f32_to_bf16(f16(src.data, i));
        ASSERT_EQ(static_cast<const uint16_t*>(got.data)[i], want) << i;
        changed += bf16_to_f32(want) != f16(src.data, i);
    }
    EXPECT_GT(changed, n / 2) << "bf16 keeps 8 of fp16's 11 significant bits: most weights round";
    EXPECT_EQ(bf->weights.final_norm.dtype, DType::BF16);
    EXPECT_EQ(bf->weights.embed_tokens.dtype, DType::BF16);
    EXPECT_EQ(bf->quantization_name(), "bf16");

    o = options_in(t, "fp32", false);
    o.dtype = DType::F32;
    export_model(*m, o);
    const auto f32 = load_model(t.file("fp32"));
    EXPECT_EQ(f32->config.torch_dtype, DType::F32);
    const DenseMatrix& wide = f32->weights.layers[0].down_proj.dense;
    ASSERT_EQ(wide.dtype, DType::F32);
    for (size_t i = 0; i < size_t(wide.rows) * size_t(wide.cols); ++i)
        ASSERT_EQ(static_cast<const float*>(wide.data)[i], f16(m->weights.layers[0].down_proj.dense.data, i)) << i;
    o = options_in(t, "fp16-again", false);
    o.dtype = DType::F16;
    export_model(*f32, o);
    const auto again = load_model(t.file("fp16-again"));
    EXPECT_TRUE(same_bytes(again->weights.layers[0].down_proj.dense, m->weights.layers[0].down_proj.dense));
    // Named by the tensors, not by config.json's torch_dtype: a "float32" config over fp16 weights is fp16.
    nlohmann::json cfg = nlohmann::json::parse(test::read_file(t.file("fp16-again/config.json")));
    cfg["torch_dtype"] = "float32";
    test::write_file(t.file("fp16-again/config.json"), cfg.dump());
    EXPECT_EQ(load_model(t.file("fp16-again"))->quantization_name(), "fp16");
    EXPECT_EQ(f32->quantization_name(), "fp32");
}

// A weight fp16 cannot hold refuses an fp16 export, naming the tensor, before anything is written.
TEST(ModelExport, Fp16RefusesWeightsBeyondItsRange) {
    test::TempDir t;
    auto m = tiny_model(688);
    DenseMatrix& q = m->weights.layers[2].q_proj.dense;
    std::vector<uint16_t> wide(size_t(q.rows) * size_t(q.cols));
    for (size_t i = 0; i < wide.size(); ++i) wide[i] = f32_to_bf16(f16_to_f32(static_cast<const uint16_t*>(q.data)[i]));
    wide[5] = f32_to_bf16(1.0e5f);
    wide[9] = f32_to_bf16(-7.0e4f);
    q = DenseMatrix{DType::BF16, q.rows, q.cols, wide.data()};
    ExportOptions o = options_in(t, "f16", false);
    o.dtype = DType::F16;
    try {
        export_model(*m, o);
        FAIL() << "exported weights fp16 cannot hold";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("model.layers.2.self_attn.q_proj.weight: 2 weight(s) beyond fp16's range"), std::string::npos) << msg;
        EXPECT_NE(msg.find("bf16 or fp32"), std::string::npos) << msg;
    }
    EXPECT_FALSE(std::filesystem::exists(t.file("f16")));
    o.out_dir = t.file("bf16");
    o.dtype = DType::BF16;
    export_model(*m, o);  // bf16 holds them
    EXPECT_EQ(bf16_to_f32(static_cast<const uint16_t*>(load_model(t.file("bf16"))->weights.layers[2].q_proj.dense.data)[5]),
              bf16_to_f32(f32_to_bf16(1.0e5f)));
}

TEST(ModelExport, AwqFolderIsWithinHalfAStepOfEveryWeight) {
    test::TempDir t;
    const auto m = tiny_model(512);
    export_model(*m, options_in(t, "tiny-awq", true));
    const auto back = load_model(t.file("tiny-awq"));
    ASSERT_EQ(back->config.quant.method, QuantConfig::Method::Awq);
    EXPECT_EQ(back->config.quant.group_size, 128);
    EXPECT_EQ(back->quantization_name(), "awq-int4-g128");
    EXPECT_TRUE(same_bytes(m->weights.lm_head.dense, back->weights.lm_head.dense));  // lm_head stays fp16, as AutoAWQ leaves it
    double worst = 0;
    for (size_t l = 0; l < m->weights.layers.size(); ++l)
        for (auto [x, y] : {std::pair{&m->weights.layers[l].q_proj, &back->weights.layers[l].q_proj},
                            {&m->weights.layers[l].down_proj, &back->weights.layers[l].down_proj}}) {
            ASSERT_EQ(y->kind, Linear::Kind::Awq);
            const AwqMatrix& q = y->awq;
            for (int o = 0; o < q.out; ++o)
                for (int i = 0; i < q.in; ++i) {
                    const float w = f16_to_f32(static_cast<const uint16_t*>(x->dense.data)[size_t(o) * q.in + i]);
                    const float s = f16_to_f32(q.scales[size_t(i / q.group_size) * q.out + o]);
                    const double err = std::fabs(double(w) - double(awq_weight(q, i, o)));
                    // Half a step, and at the clamped ends the fp16 rounding of the step (2^-11 relative)
                    // over at most 16 steps.
                    ASSERT_LE(err, s * (0.5 + 16.0 / 2048)) << "layer " << l << " in " << i << " out " << o;
                    worst = std::max(worst, err / s);
                }
        }
    EXPECT_GT(worst, 0.3);  // random weights do land between levels
}

TEST(ModelExport, RoundToNearestFollowsAutoAwq) {
    // One group of 8 outputs x 32 inputs with known extremes: s = (max - min) / 15, z = -round(min / s).
    std::vector<uint16_t> w(8 * 32);
    for (int o = 0; o < 8; ++o)
        for (int i = 0; i < 32; ++i) w[size_t(o) * 32 + i] = f32_to_f16(-0.5f + float((i * 7 + o) % 32) / 31.0f);
    const AwqTensors q = awq_quantize_rtn(DenseMatrix{DType::F16, 8, 32, w.data()}, 32);
    const AwqMatrix v = q.view();
    for (int o = 0; o < 8; ++o) {
        const float s = f16_to_f32(v.scales[size_t(o)]);
        EXPECT_NEAR(s, 1.0f / 15.0f, 1e-4);
        EXPECT_EQ(awq_unpack(v.qzeros[0], o), 8);  // -round(-0.5 / (1/15)) = round(7.5) = 8 (half to even)
    }
    EXPECT_THROW(awq_quantize_rtn(DenseMatrix{DType::F16, 8, 32, w.data()}, 64), Error);
}

TEST(ModelExport, BadRequestsAreRefusedBeforeWriting) {
    test::TempDir t;
    const auto m = tiny_model(688);
    const auto message = [&](const ExportOptions& o) {
        try {
            export_model(*m, o);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    // 688 inputs of down_proj are not a multiple of 128: nothing is created.
    EXPECT_NE(message(options_in(t, "a", true)).find("down_proj"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(t.file("a")));
    ExportOptions o = options_in(t, "b", false);
    o.tokenizer_model = test::fixture_path("tokenizers/tok512");
    EXPECT_NE(message(o).find("has 512 tokens"), std::string::npos) << message(o);
    o = options_in(t, "c", false);
    o.tokenizer_model = t.file("nothing");
    EXPECT_NE(message(o).find("tokenizer.model"), std::string::npos);
    std::filesystem::create_directories(t.file("full"));
    test::write_file(t.file("full/x"), "x");
    EXPECT_NE(message(options_in(t, "full", false)).find("not an empty folder"), std::string::npos);
    const auto awq = tiny_model(512);
    export_model(*awq, options_in(t, "q", true));
    const auto loaded = load_model(t.file("q"));
    try {
        export_model(*loaded, options_in(t, "d", false));
        FAIL() << "an AWQ model was exported";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("float model"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace folio
