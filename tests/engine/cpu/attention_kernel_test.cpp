// The backend's attention kernel is ops.h's attention_head bit for bit, on every instruction set,
// for head sizes that take the vector path and ones that do not, over a scattered block table.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "engine/cpu/kernels.h"
#include "engine/cpu/ops.h"

namespace folio::cpu {
namespace {

TEST(AttentionKernel, EqualsReferenceBitForBit) {
    std::mt19937 rng(8);
    std::normal_distribution<float> nd;
    for (int hd : {8, 24, 64, 128}) {
        KvLayout layout{1, 2, hd, 16, 6};
        std::vector<float> kpool(size_t(layout.num_blocks * layout.block_elems())), vpool(kpool.size());
        for (auto& v : kpool) v = nd(rng);
        for (auto& v : vpool) v = nd(rng);
        const std::vector<int32_t> table = {4, 0, 5, 2, 1, 3};
        std::vector<float> q(static_cast<size_t>(hd));
        for (auto& v : q) v = nd(rng);
        for (int keys : {1, 15, 17, 70, 96})
            for (int kv_head : {0, 1}) {
                std::vector<float> ref(static_cast<size_t>(hd)), scratch;
                attention_head(q.data(), ref.data(), keys, kv_head, layout, kpool.data(), vpool.data(), table.data(), 0.125f, scratch);
                for (const char* isa : {"generic", "avx2", "avx512", "amx"}) {
                    const KernelTable* k = kernels_for(isa);
                    if (!k) continue;
                    std::vector<float> out(static_cast<size_t>(hd), NAN), scores(static_cast<size_t>(keys));
                    k->attention_row(q.data(), out.data(), keys, kv_head, layout, kpool.data(), vpool.data(), table.data(), 0.125f,
                                     scores.data());
                    EXPECT_EQ(std::memcmp(out.data(), ref.data(), ref.size() * sizeof(float)), 0)
                        << isa << " head_dim " << hd << " keys " << keys;
                }
            }
    }
}

}  // namespace
}  // namespace folio::cpu
