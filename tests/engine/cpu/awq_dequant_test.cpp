// The AWQ path against the same weights dequantized by the fixture's independent packer: the
// dequantized values agree exactly, and every logit of every position agrees to fp32 rounding.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/backend/backend.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/model/awq.h"
#include "engine/model/safetensors.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"
#include "tests/support/linear_by_name.h"

namespace folio {
namespace {

TEST(AwqPath, MatchesDequantizedCheckpoint) {
    const std::string dir = test::fixture_path("models/tiny-awq");
    auto awq = test::load_weights_only(dir);
    auto dense = test::load_weights_only(dir);
    SafetensorsFile deq(dir + "/dequantized.safetensors");
    int replaced = 0;
    for (const auto& [name, info] : deq.tensors()) {
        Linear* lin = test::linear_by_name(dense->weights, name);
        ASSERT_NE(lin, nullptr) << name;
        ASSERT_EQ(lin->kind, Linear::Kind::Awq);
        ASSERT_EQ(info.dtype, DType::F32);
        ASSERT_EQ(info.shape, (std::vector<int64_t>{lin->out, lin->in}));
        // The packed values dequantize to exactly the reference numbers.
        const float* ref = static_cast<const float*>(info.data);
        for (int o = 0; o < lin->out; o += 7)
            for (int i = 0; i < lin->in; i += 3) ASSERT_EQ(awq_weight(lin->awq, i, o), ref[size_t(o) * lin->in + i]) << name;
        lin->kind = Linear::Kind::Dense;
        lin->dense = DenseMatrix{DType::F32, lin->out, lin->in, info.data};
        ++replaced;
    }
    EXPECT_EQ(replaced, 7 * awq->config.num_layers);

    auto b_awq = make_cpu_backend(*awq, test::exact_cpu());
    auto b_dense = make_cpu_backend(*dense, test::exact_cpu());
    const std::vector<int32_t> tokens = {1, 15043, 23072, 10235, 13833, 22578, 14027, 14027, 346, 4942, 21405, 29871, 13,
                                         450, 4996, 17354, 1701, 29916, 432, 17204};
    const auto a = test::all_logits(*b_awq, *awq, tokens);
    const auto d = test::all_logits(*b_dense, *dense, tokens);
    ASSERT_EQ(a.size(), d.size());
    double max_err = 0, max_abs = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        max_err = std::max(max_err, double(std::fabs(a[i] - d[i])));
        max_abs = std::max(max_abs, double(std::fabs(d[i])));
    }
    EXPECT_LT(max_err, 1e-4 * std::max(1.0, max_abs)) << "max |awq - dequantized| logit difference " << max_err;
}

}  // namespace
}  // namespace folio
