// compressed-tensors W4A16 checkpoints on the CPU backend's exact mode (repacked at load into the AWQ
// layout, so the AWQ kernels run them) against the same model with the fixture's
// dequantized.safetensors as fp32 dense weights: teacher-forced logits of every position agree to
// fp32 rounding with the same top-1, and greedy generation gives the same tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "engine/backend/backend.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/model/safetensors.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"
#include "tests/support/linear_by_name.h"

namespace folio {
namespace {

// Greedy: one prefill of the prompt, then `steps` tokens one at a time (argmax, lowest id on ties).
std::vector<int32_t> greedy(Backend& b, const Model& m, const std::vector<int32_t>& prompt, int steps) {
    b.allocate_kv(KvLayout{m.config.num_layers, m.config.num_kv_heads, m.config.head_dim, 16, 8});
    std::vector<int32_t> out;
    std::vector<float> logits;
    ForwardBatch batch;
    batch.tokens = prompt;
    batch.block_tables = {0, 1, 2, 3, 4, 5, 6, 7};
    int pos = 0;
    batch.seqs.push_back(SeqSlice{0, 0, int(prompt.size()), 0, 0, (int(prompt.size()) + 15) / 16, true});
    for (int s = 0; s < steps; ++s) {
        b.forward(batch, logits);
        const int32_t next = int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
        out.push_back(next);
        pos += int(batch.tokens.size());
        batch.tokens = {next};
        batch.seqs[0] = SeqSlice{0, 0, 1, pos, 0, pos / 16 + 1, true};
    }
    return out;
}

void check(const std::string& name) {
    const std::string dir = test::fixture_path("models/" + name);
    auto ct = test::load_weights_only(dir);
    auto dense = test::load_weights_only(dir);
    ASSERT_TRUE(ct->config.quant.pack_quantized);
    SafetensorsFile deq(dir + "/dequantized.safetensors");
    int replaced = 0;
    for (const auto& [tname, info] : deq.tensors()) {
        Linear* lin = test::linear_by_name(dense->weights, tname);
        ASSERT_NE(lin, nullptr) << tname;
        ASSERT_EQ(lin->kind, Linear::Kind::Awq);
        lin->kind = Linear::Kind::Dense;
        lin->dense = DenseMatrix{DType::F32, lin->out, lin->in, info.data};
        ++replaced;
    }
    ASSERT_EQ(replaced, 4 * ct->config.num_layers);
    auto b_ct = make_cpu_backend(*ct, test::exact_cpu());
    auto b_dense = make_cpu_backend(*dense, test::exact_cpu());

    const std::vector<int32_t> tokens = {1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338,
                                         401, 396, 267, 337, 410, 408, 419, 292, 411, 322, 265, 282, 295, 433, 426};
    const auto a = test::all_logits(*b_ct, *ct, tokens);
    const auto d = test::all_logits(*b_dense, *dense, tokens);
    ASSERT_EQ(a.size(), d.size());
    const size_t vocab = size_t(ct->config.vocab_size);
    double max_err = 0, max_abs = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        max_err = std::max(max_err, double(std::fabs(a[i] - d[i])));
        max_abs = std::max(max_abs, double(std::fabs(d[i])));
    }
    EXPECT_LT(max_err, 1e-4 * std::max(1.0, max_abs)) << name << ": max |ct - dequantized| logit difference " << max_err;
    for (size_t p = 0; p < tokens.size(); ++p) {
        const auto top = [&](const std::vector<float>& v) {
            return std::max_element(v.begin() + ptrdiff_t(p * vocab), v.begin() + ptrdiff_t((p + 1) * vocab)) - v.begin();
        };
        EXPECT_EQ(top(a), top(d)) << name << " position " << p;
    }

    const std::vector<int32_t> prompt = {1, 403, 407, 26};  // "Once upon a time"
    const auto ga = greedy(*b_ct, *ct, prompt, 40);
    const auto gd = greedy(*b_dense, *dense, prompt, 40);
    EXPECT_EQ(ga, gd) << name;
    // The 4-bit model is not stories260K any more, but it still tells a story: not one token repeated.
    EXPECT_GT(std::set<int32_t>(ga.begin(), ga.end()).size(), 5u) << name;
}

TEST(CtInt4Path, SymmetricMatchesDenseOnDequantizedWeights) { check("stories260K-w4a16-ct"); }
TEST(CtInt4Path, ZeroPointsMatchDenseOnDequantizedWeights) { check("stories260K-w4a16-ct-zp"); }

}  // namespace
}  // namespace folio
