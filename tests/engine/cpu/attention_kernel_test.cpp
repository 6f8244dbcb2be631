// The attention kernel against a double-precision softmax attention, for head sizes that take the
// vector path and ones that do not, over a scattered block table; every instruction set gives the
// same bits, and ops.h attention_head (the reference the CUDA tests use) is this kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "engine/cpu/kernels.h"
#include "engine/cpu/ops.h"

namespace folio::cpu {
namespace {

TEST(AttentionKernel, MatchesExactAttentionAndEveryIsaAgrees) {
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
                std::vector<double> exact(static_cast<size_t>(hd), 0.0), sc(static_cast<size_t>(keys));
                double mx = -1e300, sum = 0;
                for (int p = 0; p < keys; ++p) {
                    const float* k = kpool.data() + layout.offset(table[size_t(p / 16)], kv_head, p % 16);
                    double d = 0;
                    for (int i = 0; i < hd; ++i) d += double(q[size_t(i)]) * k[i];
                    sc[size_t(p)] = d * 0.125;
                    mx = std::max(mx, sc[size_t(p)]);
                }
                for (int p = 0; p < keys; ++p) {
                    sc[size_t(p)] = std::exp(sc[size_t(p)] - mx);
                    sum += sc[size_t(p)];
                }
                for (int p = 0; p < keys; ++p) {
                    const float* v = vpool.data() + layout.offset(table[size_t(p / 16)], kv_head, p % 16);
                    for (int i = 0; i < hd; ++i) exact[size_t(i)] += sc[size_t(p)] / sum * v[i];
                }
                std::vector<float> ref(static_cast<size_t>(hd)), scratch;
                attention_head(q.data(), ref.data(), keys, kv_head, layout, kpool.data(), vpool.data(), table.data(), 0.125f, scratch);
                for (int i = 0; i < hd; ++i) ASSERT_NEAR(ref[size_t(i)], exact[size_t(i)], 2e-5) << "head_dim " << hd << " keys " << keys;
                for (const char* isa : {"generic", "avx2", "avx512", "amx"}) {
                    const KernelTable* k = kernels_for(isa);
                    if (!k) continue;
                    std::vector<float> out(static_cast<size_t>(hd), NAN), scores(static_cast<size_t>(keys));
                    k->attention_row(q.data(), out.data(), 0, keys, kv_head, layout, kpool.data(), vpool.data(), table.data(), 0.125f,
                                     scores.data());
                    EXPECT_EQ(std::memcmp(out.data(), ref.data(), ref.size() * sizeof(float)), 0)
                        << isa << " head_dim " << hd << " keys " << keys;
                }
            }
    }
}

// A sliding window: the query attends to positions [first_key, num_keys) only, against the exact
// attention over those keys; keys before the window are never read (they hold NaN here, and their
// blocks are not in the table), and every instruction set gives the reference's bits.
TEST(AttentionKernel, SlidingWindowMatchesExactAttentionOverTheWindow) {
    std::mt19937 rng(10);
    std::normal_distribution<float> nd;
    for (int hd : {8, 24, 64, 128}) {
        KvLayout layout{1, 2, hd, 16, 8};
        std::vector<float> kpool(size_t(layout.num_blocks * layout.block_elems())), vpool(kpool.size());
        for (auto& v : kpool) v = nd(rng);
        for (auto& v : vpool) v = nd(rng);
        std::vector<float> q(static_cast<size_t>(hd));
        for (auto& v : q) v = nd(rng);
        for (int keys : {17, 70, 96})
            for (int first : {1, 15, 16, 33, keys - 1}) {
                if (first >= keys) continue;
                // Blocks wholly before the window get an invalid id, and the window's keys before
                // `first` in its first block are poisoned: reading either would show.
                std::vector<int32_t> table = {6, 0, 5, 2, 1, 3, 7, 4};
                for (int b = 0; b < first / 16; ++b) table[size_t(b)] = -1000;
                std::vector<float> kp = kpool, vp = vpool;
                for (int p = first / 16 * 16; p < first; ++p)
                    for (int i = 0; i < hd; ++i) {
                        kp[size_t(layout.offset(table[size_t(p / 16)], 1, p % 16)) + size_t(i)] = NAN;
                        vp[size_t(layout.offset(table[size_t(p / 16)], 1, p % 16)) + size_t(i)] = NAN;
                    }
                std::vector<double> exact(static_cast<size_t>(hd), 0.0), sc(static_cast<size_t>(keys));
                double mx = -1e300, sum = 0;
                for (int p = first; p < keys; ++p) {
                    const float* k = kp.data() + layout.offset(table[size_t(p / 16)], 1, p % 16);
                    double d = 0;
                    for (int i = 0; i < hd; ++i) d += double(q[size_t(i)]) * k[i];
                    sc[size_t(p)] = d * 0.125;
                    mx = std::max(mx, sc[size_t(p)]);
                }
                for (int p = first; p < keys; ++p) {
                    sc[size_t(p)] = std::exp(sc[size_t(p)] - mx);
                    sum += sc[size_t(p)];
                }
                for (int p = first; p < keys; ++p) {
                    const float* v = vp.data() + layout.offset(table[size_t(p / 16)], 1, p % 16);
                    for (int i = 0; i < hd; ++i) exact[size_t(i)] += sc[size_t(p)] / sum * v[i];
                }
                std::vector<float> ref(static_cast<size_t>(hd)), scratch;
                attention_head(q.data(), ref.data(), keys, 1, layout, kp.data(), vp.data(), table.data(), 0.125f, scratch, first);
                for (int i = 0; i < hd; ++i)
                    ASSERT_NEAR(ref[size_t(i)], exact[size_t(i)], 2e-5) << "head_dim " << hd << " keys " << keys << " first " << first;
                for (const char* isa : {"generic", "avx2", "avx512", "amx"}) {
                    const KernelTable* k = kernels_for(isa);
                    if (!k) continue;
                    std::vector<float> out(static_cast<size_t>(hd), NAN), scores(static_cast<size_t>(keys));
                    k->attention_row(q.data(), out.data(), first, keys, 1, layout, kp.data(), vp.data(), table.data(), 0.125f,
                                     scores.data());
                    EXPECT_EQ(std::memcmp(out.data(), ref.data(), ref.size() * sizeof(float)), 0)
                        << isa << " head_dim " << hd << " keys " << keys << " first " << first;
                }
            }
    }
}

TEST(AttentionKernel, WindowPositions) {
    // As transformers masks Mistral: position p sees p - W + 1 .. p (W keys, itself included).
    EXPECT_EQ(first_attended_key(0, 4), 0);
    EXPECT_EQ(first_attended_key(3, 4), 0);
    EXPECT_EQ(first_attended_key(4, 4), 1);
    EXPECT_EQ(first_attended_key(10, 4), 7);
    EXPECT_EQ(first_attended_key(10, 0), 0);  // no window
    EXPECT_EQ(first_attended_key(10, 1), 10);
}

// Several query rows at once (the backend's GQA heads and consecutive tokens) give each row exactly
// what attention_row gives it alone, with and without a sliding window.
TEST(AttentionKernel, RowsTogetherEqualRowsAlone) {
    std::mt19937 rng(9);
    std::normal_distribution<float> nd;
    // Block size 24: the kernels take keys sixteen at a time, so a block also ends mid-group.
    for (int bs : {16, 24})
    for (int window : {0, 5, 40})
    for (int hd : {16, 64, 128}) {
        KvLayout layout{1, 2, hd, bs, 8};
        std::vector<float> kpool(size_t(layout.num_blocks * layout.block_elems())), vpool(kpool.size());
        for (auto& v : kpool) v = nd(rng);
        for (auto& v : vpool) v = nd(rng);
        const std::vector<int32_t> table = {7, 2, 5, 0, 1, 6, 3, 4};
        for (int rows : {1, 4, 13, 16}) {
            std::vector<float> qs(size_t(rows) * hd), outs(qs.size(), NAN);
            for (auto& v : qs) v = nd(rng);
            std::vector<const float*> q;
            std::vector<float*> o;
            std::vector<int> keys, first;
            for (int r = 0; r < rows; ++r) {
                q.push_back(qs.data() + size_t(r) * hd);
                o.push_back(outs.data() + size_t(r) * hd);
                keys.push_back(1 + (r * 37) % 120);  // uneven, like causal rows of a prefill chunk
                first.push_back(first_attended_key(keys.back() - 1, window));
            }
            for (const char* isa : {"generic", "avx2", "avx512", "amx"}) {
                const KernelTable* k = kernels_for(isa);
                if (!k) continue;
                std::vector<float> scores(size_t(rows) * 128);
                k->attention_rows(q.data(), o.data(), first.data(), keys.data(), rows, 1, layout, kpool.data(), vpool.data(), table.data(), 0.1f,
                                  scores.data());
                for (int r = 0; r < rows; ++r) {
                    std::vector<float> alone(static_cast<size_t>(hd)), sc(128);
                    k->attention_row(q[size_t(r)], alone.data(), first[size_t(r)], keys[size_t(r)], 1, layout, kpool.data(), vpool.data(), table.data(), 0.1f,
                                     sc.data());
                    EXPECT_EQ(std::memcmp(alone.data(), o[size_t(r)], size_t(hd) * sizeof(float)), 0)
                        << isa << " block " << bs << " window " << window << " head_dim " << hd << " rows " << rows << " row " << r;
                }
            }
        }
    }
}

}  // namespace
}  // namespace folio::cpu
