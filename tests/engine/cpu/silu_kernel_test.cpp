// The SiLU-mul kernel (and through it exp16, the exponential the softmax also uses) against silu in
// double precision, on every instruction set, which must all give the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/cpu/kernels.h"
#include "engine/cpu/ops.h"

namespace folio::cpu {
namespace {

TEST(SiluKernel, WithinAFewUlpOfExactAndEveryIsaAgrees) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> wide(-100.0f, 100.0f), narrow(-8.0f, 8.0f);
    // 1001 values: not a multiple of 16, so the tail path runs too.
    std::vector<float> gate(1001), up(gate.size());
    for (size_t i = 0; i < gate.size(); ++i) {
        gate[i] = i % 3 == 0 ? wide(rng) : narrow(rng);
        up[i] = narrow(rng);
    }
    gate[0] = 0.0f;
    gate[1] = -0.0f;
    gate[2] = 87.5f;   // e^-g near the bottom of exp16's range
    gate[3] = -87.5f;  // e^-g near the top
    gate[4] = 1e-30f;
    std::vector<float> first;
    for (const char* isa : {"generic", "avx2", "avx512", "amx"}) {
        const KernelTable* k = kernels_for(isa);
        if (!k) continue;
        std::vector<float> out(gate.size(), NAN);
        k->silu_mul(gate.data(), up.data(), out.data(), int64_t(out.size()));
        for (size_t i = 0; i < out.size(); ++i) {
            const double g = gate[i];
            const double exact = g / (1.0 + std::exp(-g)) * double(up[i]);
            // exp16 within about 1 ulp, then a division and a product: a few ulp of the result. Past
            // g = -88.7, e^-g overflows to inf (as std::exp does) and the result to -0 for an exact
            // value below 1e-35.
            EXPECT_NEAR(out[i], exact, std::fabs(exact) * 5e-7 + 1e-35) << isa << " gate " << gate[i] << " up " << up[i];
        }
        if (first.empty()) first = out;
        else EXPECT_EQ(std::memcmp(first.data(), out.data(), sizeof(float) * out.size()), 0) << isa;
    }
    // ops.h silu_mul is the kernel.
    std::vector<float> via_ops(gate.size()), via_table(gate.size());
    silu_mul(gate.data(), up.data(), via_ops.data(), int64_t(via_ops.size()));
    kernels().silu_mul(gate.data(), up.data(), via_table.data(), int64_t(via_table.size()));
    EXPECT_EQ(std::memcmp(via_ops.data(), via_table.data(), sizeof(float) * via_ops.size()), 0);
}

}  // namespace
}  // namespace folio::cpu
