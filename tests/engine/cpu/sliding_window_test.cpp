// Sliding-window attention (Mistral v0.1's `sliding_window`) in the CPU backend, on the fixture
// models with a small window set on their config: logits at every position against a naive
// reference forward pass whose attention masks in double precision as transformers does (position
// p sees p - W + 1 .. p); a window that covers the whole context gives the bits of no window; and
// the bits stay independent of chunking and of the batch under a window.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "engine/backend/backend.h"
#include "engine/core/thread_pool.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/cpu/ops.h"
#include "engine/model/rope.h"
#include "tests/engine/cpu/chunked_run.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

// Logits of every position of `tokens` (one row per position), from plain ops.h building blocks and
// an attention written out here in double precision over positions [p - window + 1, p] (window 0:
// all of 0..p).
std::vector<std::vector<float>> reference_logits(const Model& m, const std::vector<int32_t>& tokens, int window) {
    const ModelConfig& c = m.config;
    const int T = int(tokens.size()), H = c.hidden_size, hd = c.head_dim;
    const int qd = c.num_heads * hd, kvd = c.num_kv_heads * hd, group = c.num_heads / c.num_kv_heads;
    ThreadPool pool(1);
    const std::vector<float> inv_freq = rope_inv_freq(c);
    const auto f32 = [](const FloatTensor& t) {
        std::vector<float> v(size_t(t.numel()));
        row_to_f32(t, 0, t.numel(), v.data());
        return v;
    };
    std::vector<int32_t> pos(static_cast<size_t>(T));
    for (int t = 0; t < T; ++t) pos[size_t(t)] = t;
    std::vector<float> x(size_t(T) * H), xn(x.size()), q(size_t(T) * qd), k(size_t(T) * kvd), v(k.size()), att(q.size()), proj(x.size());
    std::vector<float> gate(size_t(T) * c.intermediate_size), up(gate.size());
    for (int t = 0; t < T; ++t) row_to_f32(m.weights.embed_tokens, tokens[size_t(t)], H, x.data() + size_t(t) * H);
    for (const auto& L : m.weights.layers) {
        cpu::rms_norm(x.data(), f32(L.input_norm).data(), xn.data(), T, H, c.rms_norm_eps);
        cpu::linear(L.q_proj, xn.data(), T, q.data(), pool);
        cpu::linear(L.k_proj, xn.data(), T, k.data(), pool);
        cpu::linear(L.v_proj, xn.data(), T, v.data(), pool);
        cpu::rope(q.data(), T, c.num_heads, hd, pos.data(), inv_freq.data());
        cpu::rope(k.data(), T, c.num_kv_heads, hd, pos.data(), inv_freq.data());
        for (int t = 0; t < T; ++t)
            for (int h = 0; h < c.num_heads; ++h) {
                const int kvh = h / group;
                const int first = window > 0 ? std::max(0, t - window + 1) : 0;
                std::vector<double> sc(size_t(t + 1));
                double mx = -1e300, sum = 0;
                for (int p = first; p <= t; ++p) {
                    double d = 0;
                    for (int i = 0; i < hd; ++i)
                        d += double(q[(size_t(t) * c.num_heads + size_t(h)) * hd + size_t(i)]) * k[(size_t(p) * c.num_kv_heads + size_t(kvh)) * hd + size_t(i)];
                    sc[size_t(p)] = d / std::sqrt(double(hd));
                    mx = std::max(mx, sc[size_t(p)]);
                }
                for (int p = first; p <= t; ++p) sum += (sc[size_t(p)] = std::exp(sc[size_t(p)] - mx));
                for (int i = 0; i < hd; ++i) {
                    double o = 0;
                    for (int p = first; p <= t; ++p) o += sc[size_t(p)] / sum * v[(size_t(p) * c.num_kv_heads + size_t(kvh)) * hd + size_t(i)];
                    att[(size_t(t) * c.num_heads + size_t(h)) * hd + size_t(i)] = float(o);
                }
            }
        cpu::linear(L.o_proj, att.data(), T, proj.data(), pool);
        for (size_t i = 0; i < x.size(); ++i) x[i] += proj[i];
        cpu::rms_norm(x.data(), f32(L.post_attention_norm).data(), xn.data(), T, H, c.rms_norm_eps);
        cpu::linear(L.gate_proj, xn.data(), T, gate.data(), pool);
        cpu::linear(L.up_proj, xn.data(), T, up.data(), pool);
        cpu::silu_mul(gate.data(), up.data(), gate.data(), int64_t(gate.size()));
        cpu::linear(L.down_proj, gate.data(), T, proj.data(), pool);
        for (size_t i = 0; i < x.size(); ++i) x[i] += proj[i];
    }
    cpu::rms_norm(x.data(), f32(m.weights.final_norm).data(), xn.data(), T, H, c.rms_norm_eps);
    std::vector<float> logits(size_t(T) * c.vocab_size);
    cpu::linear(m.weights.lm_head, xn.data(), T, logits.data(), pool);
    std::vector<std::vector<float>> rows;
    for (int t = 0; t < T; ++t) rows.emplace_back(logits.begin() + long(t) * c.vocab_size, logits.begin() + long(t + 1) * c.vocab_size);
    return rows;
}

using Seq = test::PagedSeq;


// Backend logits under `window` (nullopt: none) for the given sequences and chunk size. The
// fixtures are Llama checkpoints; as Mistral (the same network) their config's window applies.
std::vector<std::vector<float>> backend_logits(Model& m, std::optional<int> window, const std::vector<Seq>& seqs, int chunk,
                                               const std::string& architecture = "MistralForCausalLM") {
    m.config.architecture = architecture;
    m.config.sliding_window = window;
    auto backend = make_cpu_backend(m, test::exact_cpu());
    backend->allocate_kv(KvLayout{m.config.num_layers, m.config.num_kv_heads, m.config.head_dim, 16, 32});
    return test::run_chunked(*backend, m.config.vocab_size, seqs, chunk);
}

std::vector<Seq> random_seqs(int vocab, const std::vector<int>& lengths) {
    std::mt19937 rng(11);
    std::vector<int32_t> perm(32);
    for (int i = 0; i < 32; ++i) perm[size_t(i)] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Seq> seqs;
    int next = 0;
    for (int len : lengths) {
        Seq s;
        for (int i = 0; i < len; ++i) s.tokens.push_back(int32_t(rng() % uint32_t(vocab)));
        for (int b = 0; b < (len + 15) / 16; ++b) s.blocks.push_back(perm[size_t(next++)]);
        seqs.push_back(s);
    }
    return seqs;
}

float max_abs(const std::vector<float>& v) {
    float m = 0;
    for (float x : v) m = std::max(m, std::fabs(x));
    return m;
}

float max_diff(const float* a, const float* b, int n) {
    float m = 0;
    for (int i = 0; i < n; ++i) m = std::max(m, std::fabs(a[i] - b[i]));
    return m;
}

class SlidingWindow : public ::testing::TestWithParam<const char*> {};

// Decode one token at a time (every position's logits) and prefill in chunks of 7 and 45 (which
// cross block boundaries and cover windows that start inside a block), against the reference.
TEST_P(SlidingWindow, MatchesTheReferenceAtEveryPosition) {
    auto m = test::load_weights_only(test::fixture_path(std::string("models/") + GetParam()));
    const int vocab = m->config.vocab_size, window = 6;
    const auto seqs = random_seqs(vocab, {45});
    const auto ref = reference_logits(*m, seqs[0].tokens, window);
    const auto unwindowed = reference_logits(*m, seqs[0].tokens, 0);
    const float scale = max_abs(ref.back());
    ASSERT_GT(scale, 0.0f);
    const float tol = 2e-3f * scale;
    for (int chunk : {1, 7, 45}) {
        const auto got = backend_logits(*m, window, seqs, chunk)[0];
        int row = 0;
        float worst_unwindowed = 0;
        for (int end = std::min(chunk, 45); ; end = std::min(end + chunk, 45)) {
            const float* g = got.data() + size_t(row) * vocab;
            EXPECT_LE(max_diff(g, ref[size_t(end - 1)].data(), vocab), tol) << "chunk " << chunk << " position " << end - 1;
            if (end - 1 >= window) worst_unwindowed = std::max(worst_unwindowed, max_diff(g, unwindowed[size_t(end - 1)].data(), vocab));
            ++row;
            if (end == 45) break;
        }
        ASSERT_EQ(size_t(row) * vocab, got.size());
        // The window matters at these positions: without it the logits are far off.
        EXPECT_GT(worst_unwindowed, 20 * tol) << "chunk " << chunk;
    }
}

// A window as long as the context (or longer) masks nothing: the bits of no window, for decode,
// chunked prefill and several sequences in one batch.
TEST_P(SlidingWindow, WindowCoveringTheContextIsBitwiseNoWindow) {
    auto m = test::load_weights_only(test::fixture_path(std::string("models/") + GetParam()));
    const auto seqs = random_seqs(m->config.vocab_size, {45, 17, 3});
    for (int chunk : {1, 7, 45}) {
        const auto none = backend_logits(*m, std::nullopt, seqs, chunk);
        for (int window : {45, 46, 1000}) {
            const auto got = backend_logits(*m, window, seqs, chunk);
            for (size_t s = 0; s < seqs.size(); ++s) {
                ASSERT_EQ(got[s].size(), none[s].size());
                EXPECT_EQ(std::memcmp(got[s].data(), none[s].data(), got[s].size() * sizeof(float)), 0)
                    << "window " << window << " chunk " << chunk << " sequence " << s;
            }
        }
    }
}

// transformers' Llama attention ignores `sliding_window` (some Llama-architecture configs carry
// one), so the backend does too: the bits of no window, where a Mistral would differ.
TEST_P(SlidingWindow, LlamaArchitectureIgnoresTheField) {
    auto m = test::load_weights_only(test::fixture_path(std::string("models/") + GetParam()));
    const auto seqs = random_seqs(m->config.vocab_size, {30});
    const auto none = backend_logits(*m, std::nullopt, seqs, 1);
    const auto llama = backend_logits(*m, 4, seqs, 1, "LlamaForCausalLM");
    const auto mistral = backend_logits(*m, 4, seqs, 1);
    ASSERT_EQ(llama[0].size(), none[0].size());
    EXPECT_EQ(std::memcmp(llama[0].data(), none[0].data(), none[0].size() * sizeof(float)), 0);
    EXPECT_NE(std::memcmp(mistral[0].data(), none[0].data(), none[0].size() * sizeof(float)), 0);
}

// Under a window the results still depend neither on the batch nor on the chunking: each sequence
// alone, one token per step, against all of them together in chunks of 5 and 16.
TEST_P(SlidingWindow, BatchInvariantUnderAWindow) {
    auto m = test::load_weights_only(test::fixture_path(std::string("models/") + GetParam()));
    const int vocab = m->config.vocab_size, window = 9;
    const auto seqs = random_seqs(vocab, {40, 5, 21, 1, 33});
    std::vector<std::vector<float>> alone;
    for (const auto& s : seqs) alone.push_back(backend_logits(*m, window, {s}, 1)[0]);
    for (int chunk : {5, 16}) {
        const auto together = backend_logits(*m, window, seqs, chunk);
        for (size_t s = 0; s < seqs.size(); ++s) {
            const int len = int(seqs[s].tokens.size());
            int row = 0;
            for (int end = std::min(chunk, len); ; end = std::min(end + chunk, len)) {
                EXPECT_EQ(std::memcmp(together[s].data() + size_t(row) * vocab, alone[s].data() + size_t(end - 1) * vocab, size_t(vocab) * sizeof(float)), 0)
                    << "chunk " << chunk << " sequence " << s << " position " << end - 1;
                ++row;
                if (end == len) break;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SlidingWindow, ::testing::Values("stories260K", "tiny-awq"),
                         [](const auto& info) { return std::string(info.param) == "tiny-awq" ? std::string("tiny_awq") : std::string(info.param); });

}  // namespace
}  // namespace folio
