// The CPU backend's FP8 path (weight-only, W8A16) on both FP8 fixtures against the same model with
// the fixture's dequantized.safetensors as fp32 dense weights: every logit of every position agrees
// bit for bit, in one prefill and one token at a time.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/backend/backend.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/model/safetensors.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"
#include "tests/support/linear_by_name.h"

namespace folio {
namespace {

// Logits of every position: one prefill of all tokens (want_logits on the last only), so positions
// are fed one by one here.
std::vector<float> all_logits(Backend& b, const Model& m, const std::vector<int32_t>& tokens, int chunk) {
    KvLayout layout{m.config.num_layers, m.config.num_kv_heads, m.config.head_dim, 16, 8};
    b.allocate_kv(layout);
    std::vector<float> out, logits;
    for (size_t i = 0; i < tokens.size(); i += size_t(chunk)) {
        const int n = std::min<int>(chunk, int(tokens.size() - i));
        ForwardBatch batch;
        batch.tokens.assign(tokens.begin() + ptrdiff_t(i), tokens.begin() + ptrdiff_t(i) + n);
        batch.block_tables = {0, 1, 2, 3, 4, 5, 6, 7};
        batch.seqs.push_back(SeqSlice{0, 0, n, int(i), 0, (int(i) + n + 15) / 16, true});
        b.forward(batch, logits);
        out.insert(out.end(), logits.begin(), logits.end());
    }
    return out;
}

void check(const std::string& name) {
    const std::string dir = test::fixture_path("models/" + name);
    auto fp8 = test::load_weights_only(dir);
    auto dense = test::load_weights_only(dir);
    SafetensorsFile deq(dir + "/dequantized.safetensors");
    int replaced = 0;
    for (const auto& [tname, info] : deq.tensors()) {
        Linear* lin = test::linear_by_name(dense->weights, tname);
        ASSERT_NE(lin, nullptr) << tname;
        ASSERT_EQ(lin->kind, Linear::Kind::Fp8);
        lin->kind = Linear::Kind::Dense;
        lin->dense = DenseMatrix{DType::F32, lin->out, lin->in, info.data};
        ++replaced;
    }
    ASSERT_EQ(replaced, 7 * fp8->config.num_layers);
    auto b_fp8 = make_cpu_backend(*fp8, test::exact_cpu());
    auto b_dense = make_cpu_backend(*dense, test::exact_cpu());
    const std::vector<int32_t> tokens = {1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338,
                                         401, 396, 267, 337, 410, 408, 419, 292, 411, 322, 265, 282, 295, 433, 426};
    for (int chunk : {1, 7}) {
        const auto a = all_logits(*b_fp8, *fp8, tokens, chunk);
        const auto d = all_logits(*b_dense, *dense, tokens, chunk);
        ASSERT_EQ(a.size(), d.size());
        EXPECT_EQ(std::memcmp(a.data(), d.data(), a.size() * sizeof(float)), 0) << name << " chunk " << chunk;
    }
}

TEST(Fp8Path, PerTensorLogitsEqualDenseOnDequantizedWeights) { check("stories260K-fp8"); }
TEST(Fp8Path, PerChannelLogitsEqualDenseOnDequantizedWeights) { check("stories260K-fp8-ct"); }

}  // namespace
}  // namespace folio
