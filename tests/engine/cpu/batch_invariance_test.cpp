// The CPU backend's results for a sequence do not depend on the batch around it, nor on how its
// prompt is chunked, in either activation mode: logits are compared bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/cpu/kernels.h"
#include "tests/engine/cpu/chunked_run.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

using Seq = test::PagedSeq;


void check(const std::string& fixture, CpuActivations mode) {
    auto m = test::load_weights_only(test::fixture_path("models/" + fixture));
    const int vocab = m->config.vocab_size;
    BackendOptions options;
    options.cpu_activations = mode;
    auto backend = make_cpu_backend(*m, options);
    KvLayout layout{m->config.num_layers, m->config.num_kv_heads, m->config.head_dim, 16, 64};
    backend->allocate_kv(layout);

    std::mt19937 rng(7);
    std::vector<Seq> seqs;
    std::vector<int32_t> perm(64);
    for (int i = 0; i < 64; ++i) perm[size_t(i)] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    int next_block = 0;
    for (int len : {37, 5, 18, 1, 29}) {
        Seq s;
        for (int i = 0; i < len; ++i) s.tokens.push_back(int32_t(rng() % uint32_t(vocab)));
        for (int b = 0; b < (len + 15) / 16; ++b) s.blocks.push_back(perm[size_t(next_block++)]);
        seqs.push_back(s);
    }
    // Reference: each sequence alone, one token per step (pure decode).
    std::vector<std::vector<float>> alone;
    for (const auto& s : seqs) {
        auto r = test::run_chunked(*backend, vocab, {s}, 1);
        alone.push_back(r[0]);
    }
    // Together, token by token: same logits bit for bit at every position.
    auto together = test::run_chunked(*backend, vocab, seqs, 1);
    for (size_t i = 0; i < seqs.size(); ++i) {
        ASSERT_EQ(together[i].size(), alone[i].size());
        EXPECT_EQ(std::memcmp(together[i].data(), alone[i].data(), alone[i].size() * sizeof(float)), 0) << "sequence " << i;
    }
    // Together with chunked prefill (chunks of 7): the logits after each chunk equal the decode
    // logits at that position.
    auto chunked = test::run_chunked(*backend, vocab, seqs, 7);
    for (size_t i = 0; i < seqs.size(); ++i) {
        const size_t n = seqs[i].tokens.size();
        size_t chunk_idx = 0;
        for (size_t end = std::min<size_t>(7, n); ; end = std::min(end + 7, n), ++chunk_idx) {
            const float* a = chunked[i].data() + chunk_idx * size_t(vocab);
            const float* b = alone[i].data() + (end - 1) * size_t(vocab);
            EXPECT_EQ(std::memcmp(a, b, size_t(vocab) * sizeof(float)), 0) << "sequence " << i << " position " << end - 1;
            if (end == n) break;
        }
    }
}

TEST(BatchInvariance, Stories260K) { check("stories260K", CpuActivations::Exact); }
TEST(BatchInvariance, TinyAwq) { check("tiny-awq", CpuActivations::Exact); }
TEST(BatchInvariance, Stories260KInt8) { check("stories260K", CpuActivations::Int8); }
TEST(BatchInvariance, TinyAwqInt8) { check("tiny-awq", CpuActivations::Int8); }

// Every instruction-set variant of the kernels computes the very same numbers.
TEST(Kernels, EveryIsaAgreesBitForBit) {
    const cpu::KernelTable* generic = cpu::kernels_for("generic");
    ASSERT_NE(generic, nullptr);
    // The variants this CPU runs; with none but the generic one there is nothing to compare.
    std::vector<std::pair<const char*, const cpu::KernelTable*>> variants;
    for (const char* isa : {"avx2", "avx512"})
        if (const cpu::KernelTable* t = cpu::kernels_for(isa)) variants.push_back({isa, t});
    if (variants.empty()) GTEST_SKIP() << "this CPU runs only the generic kernels (no AVX2 or AVX-512): nothing to compare them with";
    std::mt19937 rng(3);
    std::normal_distribution<float> nd;
    for (int n : {1, 7, 16, 33, 128, 1000}) {
        std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
        for (auto& x : a) x = nd(rng);
        for (auto& x : b) x = nd(rng);
        for (const auto& [isa, t] : variants) {
            const float x = t->dot(a.data(), b.data(), n), y = generic->dot(a.data(), b.data(), n);
            EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0) << isa << " n=" << n;
        }
    }
}

}  // namespace
}  // namespace folio
