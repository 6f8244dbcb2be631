// The CUDA backend end to end against the CPU backend (the oracle) on the fixture models: teacher-
// forced logits at every position, greedy generation, mixed prefill/decode batches, CUDA-graph
// decode steps, copy-on-write block copies and the out-of-memory message. The same file runs in the
// SIMT harness (CI) and on a real GPU (tests/gpu, device_check.sh), with the GPU's default linear
// policy (dense linears and large AWQ products through cuBLAS; in the harness, its host cuBLAS);
// the tests marked so also run with the hand-written kernels only.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/model/architectures.h"
#include "engine/model/model.h"
#include "engine/runtime/sample_step.h"
#include "engine/sampling/sampler.h"
#include "engine/tokenizer/tokenizer_loader.h"
#include "kernels/cuda_backend.h"
#include "kernels/step_inputs.h"
#include "support/linear_policies.h"
#include "support/window_reference.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

struct Fixture {
    std::unique_ptr<Model> model;
    nlohmann::json expected;
};

Fixture load(const std::string& name) {
    const std::string dir = test::fixture_path("models/" + name);
    return {test::load_weights_only(dir), nlohmann::json::parse(test::read_file(dir + "/expected_greedy.json"))};
}

// As load_model() sets it up: the ids past the tokenizer's are padding (Qwen's fixtures have 151669
// tokens in 151936 rows), masked to -inf by both backends.
Fixture load_with_tokenizer_vocab(const std::string& name) {
    Fixture f = load(name);
    f.model->config.decodable_vocab = load_tokenizer(test::fixture_path("models/" + name))->vocab_size();
    return f;
}

// The CPU reference every kernel is checked against: its exact mode (the default is the fast int8 mode).
BackendOptions exact_cpu_options() {
    BackendOptions o;
    o.cpu_activations = CpuActivations::Exact;
    return o;
}

using test::HandWrittenKernelsOnly;
using test::ScopedEnv;

BackendOptions small_options(bool graphs = true) {
    BackendOptions o;
    o.max_num_batched_tokens = 96;
    o.max_num_seqs = 8;
    o.cuda_graphs = graphs;
    return o;
}

KvLayout layout_for(const Model& m, int blocks = 64) {
    return KvLayout{m.config.num_layers, m.config.num_kv_heads, m.config.head_dim, 16, blocks};
}

// A block table that is deliberately not in order: sequence `which` of several gets every k-th block
// counting down from the top.
std::vector<int32_t> scattered_table(int which, int stride, int blocks, int pool) {
    std::vector<int32_t> t;
    for (int b = 0; b < blocks; ++b) t.push_back(pool - 1 - (b * stride + which));
    return t;
}

struct Step {
    int seq;        // index into tables
    int begin, n;   // tokens [begin, begin + n) of that sequence
};

// One forward of several sequences' slices; every slice wants the logits of its last token.
ForwardBatch make_batch(const std::vector<const std::vector<int>*>& seqs, const std::vector<std::vector<int32_t>>& tables,
                        const std::vector<Step>& steps) {
    ForwardBatch b;
    for (const Step& st : steps) {
        SeqSlice s;
        s.seq_id = st.seq;
        s.token_offset = b.num_tokens();
        s.num_tokens = st.n;
        s.context_before = st.begin;
        s.num_blocks = (st.begin + st.n + 15) / 16;
        s.block_table_offset = int(b.block_tables.size());
        s.want_logits = true;
        b.block_tables.insert(b.block_tables.end(), tables[size_t(st.seq)].begin(), tables[size_t(st.seq)].begin() + s.num_blocks);
        b.tokens.insert(b.tokens.end(), seqs[size_t(st.seq)]->begin() + st.begin, seqs[size_t(st.seq)]->begin() + st.begin + st.n);
        b.seqs.push_back(s);
    }
    return b;
}

struct Agreement {
    int rows = 0, checked = 0, agreed = 0;
    double worst_rel = 0.0;
    cuda::LinearPathCounts linears;  // the products each path ran (after the backend was made)
};

// Compares logits rows: relative L2 error everywhere, top-1 where the reference's top-2 margin is clear.
void compare_rows(const std::vector<float>& got, const std::vector<float>& ref, int vocab, Agreement& a) {
    ASSERT_EQ(got.size(), ref.size());
    for (size_t r = 0; r < ref.size() / size_t(vocab); ++r) {
        const float* g = &got[r * size_t(vocab)];
        const float* c = &ref[r * size_t(vocab)];
        double num = 0, den = 0;
        int gb = 0, cb = 0;
        for (int i = 0; i < vocab; ++i) {
            if (std::isinf(c[i]) && c[i] < 0) {  // a padded id the CPU masks: the kernels must mask it too
                ASSERT_EQ(g[i], c[i]) << "row " << r << " padded logit " << i;
                continue;
            }
            ASSERT_TRUE(std::isfinite(g[i])) << "row " << r << " logit " << i;
            num += double(g[i] - c[i]) * (g[i] - c[i]);
            den += double(c[i]) * c[i];
            if (g[i] > g[gb]) gb = i;
            if (c[i] > c[cb]) cb = i;
        }
        float second = -INFINITY;
        for (int i = 0; i < vocab; ++i)
            if (i != cb) second = std::max(second, c[i]);
        a.rows++;
        a.worst_rel = std::max(a.worst_rel, std::sqrt(num / std::max(den, 1e-30)));
        if (c[cb] - second > 0.01f) {  // clear: far beyond the ~1e-3 fp16 error
            a.checked++;
            a.agreed += gb == cb;
        }
    }
}

void run_both(Backend& gpu, Backend& cpu, const ForwardBatch& b, int vocab, Agreement& a) {
    std::vector<float> lg, lc;
    gpu.forward(b, lg);
    cpu.forward(b, lc);
    compare_rows(lg, lc, vocab, a);
}

// Teacher forcing: the reference continuation is fed back, so every position is compared even
// where the two backends would part ways in free generation.
Agreement teacher_forced(const Fixture& f, int prefill_chunk, const BackendOptions& options, KvCacheDtype kv = KvCacheDtype::Auto) {
    const Model& m = *f.model;
    auto gpu = make_cuda_backend(m, options);
    BackendOptions cpu_options = exact_cpu_options();
    cpu_options.kv_scales_from_first_batch = options.kv_scales_from_first_batch;
    auto cpu = make_cpu_backend(m, cpu_options);
    KvLayout layout = layout_for(m);
    layout.dtype = kv;
    gpu->allocate_kv(layout);
    cpu->allocate_kv(layout);
    const cuda::LinearPathCounts made = cuda_linear_path_counts(*gpu);
    Agreement a;
    for (const auto& c : f.expected["cases"]) {
        std::vector<int> seq = c["prompt_ids"].get<std::vector<int>>();
        const auto ids = c["ids"].get<std::vector<int>>();
        const int prompt = int(seq.size());
        seq.insert(seq.end(), ids.begin(), ids.end());
        const std::vector<std::vector<int32_t>> tables{scattered_table(0, 1, 64, 64)};
        int pos = 0;
        while (pos < int(seq.size())) {
            const int n = pos < prompt ? std::min(prefill_chunk, prompt - pos) : 1;
            run_both(*gpu, *cpu, make_batch({&seq}, tables, {{0, pos, n}}), m.config.vocab_size, a);
            pos += n;
        }
    }
    a.linears = cuda_linear_path_counts(*gpu).since(made);
    return a;
}

void expect_parity(const Agreement& a, const char* what) {
    SCOPED_TRACE(what);
    EXPECT_GT(a.rows, 0);
    EXPECT_LT(a.worst_rel, 2e-2) << "worst relative logit error";
    EXPECT_GE(a.checked, std::max(1, a.rows / 3)) << "too few positions with a clear top-1 to be a meaningful check";
    EXPECT_EQ(a.agreed, a.checked) << "top-1 disagreements where the reference margin is clear";
    std::printf("[ parity ] %s: %d positions, worst relative logit error %.2e, top-1 agrees at %d/%d clear positions\n", what,
                a.rows, a.worst_rel, a.agreed, a.checked);
}

TEST(CudaBackend, TeacherForcedParityStories260K) {
    const Fixture f = load("stories260K");
    const Agreement whole = teacher_forced(f, 1 << 20, small_options());
    expect_parity(whole, "stories260K, whole prompt then decode");
    EXPECT_GT(whole.linears.dense_cublas, 0u) << "the default policy sends dense linears to cuBLAS";
    EXPECT_EQ(whole.linears.hand_written(), 0u);
    // Prefill in chunks of 2, and 16-key decode partitions: a 69-token context spans five thread
    // blocks per head, merged by the second kernel (PagedAttention v2).
    Agreement a;
    {
        ScopedEnv partitions("FOLIO_CUDA_PARTITION_SIZE", "16");
        a = teacher_forced(f, 2, small_options());
    }
    expect_parity(a, "stories260K, 2-token prefill chunks, 16-key partitions");
}

// FP8 checkpoints (per-tensor AutoFP8 and per-channel compressed-tensors) against the CPU's weight-only
// path: weight-only on the device too (as below sm_89), then with W8A8 prefill on FP8 tensor cores
// (the harness reports sm_89): activations quantized to E4M3 per token move the logits more, by about
// the E4M3 step, so that run is held to a looser bound and to the top-1 where the margin is wide.
TEST(CudaBackend, TeacherForcedParityFp8Checkpoints) {
    for (const char* name : {"stories260K-fp8", "stories260K-fp8-ct"}) {
        const Fixture f = load(name);
        setenv("FOLIO_FP8_W8A8", "0", 1);
        const Agreement w8a16 = teacher_forced(f, 1 << 20, small_options());
        unsetenv("FOLIO_FP8_W8A8");
        expect_parity(w8a16, (std::string(name) + ", weight-only").c_str());
        // Decode steps take the FP8 GEMV, prompts the weight-only tensor-core GEMM; nothing quantizes activations.
        EXPECT_GT(w8a16.linears.fp8_gemv, 0u) << name;
        EXPECT_GT(w8a16.linears.fp8_w8a16_mma, 0u) << name;
        EXPECT_EQ(w8a16.linears.fp8_w8a8_mma, 0u) << name;
        const Agreement w8a8 = teacher_forced(f, 1 << 20, small_options());
        // With W8A8 allowed (the harness reports sm_89) the prompts go to the FP8 tensor cores instead,
        // except down_proj, whose k (172) is not a multiple of 16: it stays weight-only, one per layer.
        EXPECT_GT(w8a8.linears.fp8_w8a8_mma, 0u) << name;
        EXPECT_EQ(w8a8.linears.fp8_w8a16_mma, w8a16.linears.fp8_w8a16_mma / 4) << name << ": only down_proj of the 4 FP8 products";
        EXPECT_EQ(w8a8.rows, w8a16.rows);
        EXPECT_LT(w8a8.worst_rel, 0.1) << name << " W8A8";
        EXPECT_GE(w8a8.agreed, w8a8.checked * 9 / 10) << name << " W8A8";
        std::printf("[ parity ] %s, W8A8 prefill: worst relative logit error %.2e, top-1 agrees at %d/%d clear positions\n", name,
                    w8a8.worst_rel, w8a8.agreed, w8a8.checked);
    }
}

// What an FP8 KV cache itself moves on the CPU: FP8 pools against fp32 pools, teacher-forced.
Agreement cpu_fp8_kv_cost(const Fixture& f, KvCacheDtype kv, bool calibrate) {
    const Model& m = *f.model;
    BackendOptions q_options = exact_cpu_options();
    q_options.kv_scales_from_first_batch = calibrate;
    auto q = make_cpu_backend(m, q_options);
    auto ref = make_cpu_backend(m, exact_cpu_options());
    KvLayout ql = layout_for(m);
    ql.dtype = kv;
    q->allocate_kv(ql);
    ref->allocate_kv(layout_for(m));
    Agreement a;
    for (const auto& c : f.expected["cases"]) {
        std::vector<int> seq = c["prompt_ids"].get<std::vector<int>>();
        const auto ids = c["ids"].get<std::vector<int>>();
        const int prompt = int(seq.size());
        seq.insert(seq.end(), ids.begin(), ids.end());
        const std::vector<std::vector<int32_t>> tables{scattered_table(0, 1, 64, 64)};
        for (int pos = 0; pos < int(seq.size());) {
            const int n = pos < prompt ? prompt - pos : 1;
            run_both(*q, *ref, make_batch({&seq}, tables, {{0, pos, n}}), m.config.vocab_size, a);
            pos += n;
        }
    }
    return a;
}

// An FP8 KV cache on both backends (scale 1.0, or calibrated from the first batch by each backend from
// its own K and V). The two write their codes from K and V that already differ by fp16 rounding (the
// device's activations are fp16), so where a value sits near the midpoint of two codes they store
// neighbouring codes, one E4M3 step (6%) apart: their logits then differ by about what FP8 KV itself
// costs. The bound is that cost, measured on the CPU (FP8 against fp32 pools) in the same run, and the
// top-1 where the reference's margin is wide. The kernels themselves are held exactly in fp8_kv_test.
TEST(CudaBackend, TeacherForcedParityFp8KvCache) {
    const Fixture f = load("stories260K");
    for (const auto& [kv, calibrate, chunk] : {std::tuple{KvCacheDtype::Fp8E4M3, false, 1 << 20}, {KvCacheDtype::Fp8E4M3, true, 7},
                                               {KvCacheDtype::Fp8E5M2, true, 1 << 20}}) {
        const std::string what = kv_cache_dtype_name(kv, "") + (calibrate ? ", calibrated" : ", scale 1") + ", chunks of " + std::to_string(chunk);
        BackendOptions o = small_options();
        o.kv_scales_from_first_batch = calibrate;
        const Agreement a = teacher_forced(f, chunk, o, kv);
        const Agreement cost = cpu_fp8_kv_cost(f, kv, calibrate);
        EXPECT_EQ(a.rows, cost.rows);
        EXPECT_LE(a.worst_rel, std::max(2e-2, cost.worst_rel)) << what;
        EXPECT_GE(a.agreed, a.checked * 95 / 100) << what;
        std::printf("[ parity ] stories260K, %s KV cache: worst relative logit error %.2e (FP8 KV itself on the CPU: %.2e), top-1 agrees at "
                    "%d/%d clear positions\n",
                    what.c_str(), a.worst_rel, cost.worst_rel, a.agreed, a.checked);
    }
}

TEST(CudaBackend, TeacherForcedParityTinyAwq) {
    const Fixture f = load("tiny-awq");
    const Agreement a = teacher_forced(f, 1 << 20, small_options());
    expect_parity(a, "tiny-awq");
    EXPECT_GT(a.linears.awq_gemv, 0u);
    EXPECT_GT(a.linears.dense_cublas, 0u) << "lm_head (tied embeddings, fp16) goes to cuBLAS";
    EXPECT_EQ(a.linears.dense_gemv + a.linears.dense_mma, 0u);
}

// compressed-tensors W4A16 checkpoints (symmetric, and with zero points), repacked at load into the
// AWQ layout: the device's AWQ kernels on them against the CPU. Their inputs are stories260K's cases
// (the fixtures are stories260K with 4-bit attention linears).
TEST(CudaBackend, TeacherForcedParityCompressedTensorsInt4) {
    for (const char* name : {"stories260K-w4a16-ct", "stories260K-w4a16-ct-zp"}) {
        const Fixture f{test::load_weights_only(test::fixture_path(std::string("models/") + name)),
                        nlohmann::json::parse(test::read_file(test::fixture_path("models/stories260K/expected_greedy.json")))};
        ASSERT_TRUE(f.model->config.quant.pack_quantized) << name;
        const Agreement a = teacher_forced(f, 1 << 20, small_options());
        expect_parity(a, name);
        EXPECT_GT(a.linears.awq_gemv, 0u) << name << ": decode steps take the AWQ GEMV";
    }
}

// Llama-3.1's shape: llama3 rope scaling, tied embeddings, a 128256-row lm_head, head_dim 8.
TEST(CudaBackend, TeacherForcedParityTinyLlama3) {
    const Fixture f = load("tiny-llama3");
    expect_parity(teacher_forced(f, 1 << 20, small_options()), "tiny-llama3");
}

// Qwen2.5's shape: q/k/v biases (QkvBias launch), a vocabulary padded past the tokenizer (masked).
TEST(CudaBackend, TeacherForcedParityTinyQwen2) {
    const Fixture f = load_with_tokenizer_vocab("tiny-qwen2");
    ASSERT_LT(plan_model(f.model->config, f.model->weights).sampled_vocab, f.model->config.vocab_size) << "the fixture pads its vocabulary";
    expect_parity(teacher_forced(f, 1 << 20, small_options()), "tiny-qwen2");
}

// Qwen3's shape: per-head q/k RMS norms before RoPE (HeadNorm launch), explicit head_dim, padded vocabulary.
TEST(CudaBackend, TeacherForcedParityTinyQwen3) {
    const Fixture f = load_with_tokenizer_vocab("tiny-qwen3");
    expect_parity(teacher_forced(f, 1 << 20, small_options()), "tiny-qwen3");
    expect_parity(teacher_forced(f, 3, small_options()), "tiny-qwen3, 3-token prefill chunks");
}

// The other policy: the hand-written kernels only, which is also what a GPU runs with
// FOLIO_CUDA_CUBLAS=0 FOLIO_AWQ_DEQUANT_MIN_ROWS=0. It differs from the default in the dense linears
// (here) and in AWQ products of 512 rows or more (see below); smaller AWQ products take the same
// kernels under both policies.
TEST(CudaBackend, TeacherForcedParityWithTheHandWrittenKernelsOnly) {
    const HandWrittenKernelsOnly policy;
    const Agreement dense = teacher_forced(load("stories260K"), 1 << 20, small_options());
    expect_parity(dense, "stories260K, hand-written kernels only");
    EXPECT_EQ(dense.linears.cublas(), 0u);
    EXPECT_GT(dense.linears.dense_gemv, 0u);
}

// tiny-awq in steps of 512 rows (8 sequences x 64 prompt tokens), 8 rows (8 decodes) and 40 rows
// (5 x 8): under the default policy its AWQ linears take each of their three paths (dequantise +
// cuBLAS from 512 rows, the GEMV, the tensor-core kernel), and the logits of every sequence match
// the CPU backend's. (Without cuBLAS the 512 rows would go to the tensor-core kernel, which costs
// seconds in the harness: that kernel is tested on its own in gemm_test, and below 512 rows it is
// the same call under either policy.)
TEST(CudaBackend, TinyAwqStepsTakeEachAwqPathOfTheDefaultPolicyAndMatchTheCpu) {
    const Fixture f = load("tiny-awq");
    const Model& m = *f.model;
    BackendOptions o = small_options(false);
    o.max_num_batched_tokens = 512;
    auto gpu = make_cuda_backend(m, o);
    auto cpu = make_cpu_backend(m, exact_cpu_options());
    gpu->allocate_kv(layout_for(m));
    cpu->allocate_kv(layout_for(m));
    std::vector<std::vector<int>> seqs(8);
    std::vector<std::vector<int32_t>> tables;
    std::vector<const std::vector<int>*> ptrs;
    for (int s = 0; s < 8; ++s) {
        for (int i = 0; i < 73; ++i) seqs[size_t(s)].push_back(1 + (i * 37 + s * 101 + i / 5) % 31999);
        tables.push_back(scattered_table(s, 8, 5, 64));
        ptrs.push_back(&seqs[size_t(s)]);
    }
    std::vector<Step> prefill, decode, chunk;
    for (int s = 0; s < 8; ++s) {
        prefill.push_back({s, 0, 64});
        decode.push_back({s, 64, 1});
    }
    for (int s = 0; s < 5; ++s) chunk.push_back({s, 65, 8});
    Agreement a;
    cuda::LinearPathCounts last = cuda_linear_path_counts(*gpu);
    std::vector<cuda::LinearPathCounts> per_step;
    for (const auto* st : {&prefill, &decode, &chunk}) {
        run_both(*gpu, *cpu, make_batch(ptrs, tables, *st), m.config.vocab_size, a);
        const cuda::LinearPathCounts now = cuda_linear_path_counts(*gpu);
        per_step.push_back(now.since(last));
        last = now;
    }
    expect_parity(a, "tiny-awq in 512-, 8- and 40-row steps");
    const uint64_t per_step_linears = uint64_t(4 * m.config.num_layers);  // fused QKV, o_proj, fused gate/up, down
    EXPECT_EQ(per_step[0].awq_dequant_cublas, per_step_linears) << "512 rows: dequantise, then cuBLAS";
    EXPECT_EQ(per_step[0].awq_mma + per_step[0].awq_gemv, 0u);
    EXPECT_EQ(per_step[1].awq_gemv, per_step_linears);
    EXPECT_EQ(per_step[2].awq_mma, per_step_linears);
    for (const auto& c : per_step) EXPECT_EQ(c.dense_cublas, 1u) << "lm_head, once per step";
}

// Turns a fixture's dense matrices and embeddings into bf16 copies (as most Hugging Face uploads
// store them); `outlier`, when not 0, goes into one element of layer 2's down_proj.
void convert_to_bf16(Model& m, float outlier) {
    auto convert = [&](const void* data, DType dtype, int64_t n) {
        auto copy = std::make_shared<std::vector<uint16_t>>(size_t(n));
        for (int64_t i = 0; i < n; ++i) {
            const float x = dtype == DType::F32 ? static_cast<const float*>(data)[i] : f16_to_f32(static_cast<const uint16_t*>(data)[i]);
            (*copy)[size_t(i)] = f32_to_bf16(x);
        }
        m.weights.storage.push_back(copy);
        return static_cast<const void*>(copy->data());
    };
    const bool tied = m.weights.lm_head.dense.data == m.weights.embed_tokens.data;
    m.weights.embed_tokens.data = convert(m.weights.embed_tokens.data, m.weights.embed_tokens.dtype, m.weights.embed_tokens.numel());
    m.weights.embed_tokens.dtype = DType::BF16;
    if (tied) {
        m.weights.lm_head.dense.data = m.weights.embed_tokens.data;
        m.weights.lm_head.dense.dtype = DType::BF16;
    }
    for (LayerWeights& L : m.weights.layers)
        for (Linear* l : {&L.q_proj, &L.k_proj, &L.v_proj, &L.o_proj, &L.gate_proj, &L.up_proj, &L.down_proj}) {
            ASSERT_EQ(l->kind, Linear::Kind::Dense);
            l->dense.data = convert(l->dense.data, l->dense.dtype, int64_t(l->in) * l->out);
            l->dense.dtype = DType::BF16;
        }
    if (outlier != 0.0f) {
        auto* w = const_cast<uint16_t*>(static_cast<const uint16_t*>(m.weights.layers.at(2).down_proj.dense.data));
        w[3] = f32_to_bf16(outlier);
    }
}

TEST(CudaBackend, Bf16CheckpointsRunInFp16AndValuesBeyondFp16AreRefused) {
    Fixture f = load("stories260K");
    convert_to_bf16(*f.model, 0.0f);
    expect_parity(teacher_forced(f, 1 << 20, small_options()), "stories260K stored as bf16");

    Fixture g = load("stories260K");
    convert_to_bf16(*g.model, -131072.0f);  // a plain bf16 value, -inf in fp16
    try {
        make_cuda_backend(*g.model, small_options());
        FAIL() << "a weight beyond fp16's range was accepted";
    } catch (const Error& e) {
        const std::string msg = e.what();
        for (const char* part : {"model.layers.2.mlp.down_proj.weight", "BF16", "1 value(s)", "1.311e+05", "65504", "--backend cpu"})
            EXPECT_NE(msg.find(part), std::string::npos) << part << " missing in: " << msg;
    }
}

TEST(CudaBackend, SlidingWindowMatchesAWindowedReferenceModel) {
    // stories260K turned into a Mistral with a 24-token window: its 69-token case runs as 13-token
    // prefill chunks up to position 39, then decodes (16-key partitions: the window spans three).
    // Every position's logits are compared with the fp32 reference model with the same window.
    Fixture f = load("stories260K");
    Model& m = *f.model;
    std::vector<int> seq = f.expected["cases"][0]["prompt_ids"].get<std::vector<int>>();
    for (int id : f.expected["cases"][0]["ids"].get<std::vector<int>>()) seq.push_back(id);
    const int vocab = m.config.vocab_size, window = 24, n = int(seq.size());
    ASSERT_GT(n, 2 * window);

    // The reference itself: without a window it is the CPU backend; with it, far from it late on.
    const std::vector<float> plain = test::windowed_reference_logits(m, seq, 0);
    const std::vector<float> windowed = test::windowed_reference_logits(m, seq, window);
    {
        auto cpu = make_cpu_backend(m, exact_cpu_options());
        cpu->allocate_kv(layout_for(m));
        std::vector<float> lc;
        cpu->forward(make_batch({&seq}, {scattered_table(0, 1, 64, 64)}, {{0, 0, n}}), lc);
        Agreement a;
        std::vector<float> last(plain.end() - vocab, plain.end());
        compare_rows(last, lc, vocab, a);
        EXPECT_LT(a.worst_rel, 1e-4) << "the reference without a window must be the CPU backend";
        double diff = 0, norm = 0;
        for (size_t i = size_t(2 * window) * vocab; i < plain.size(); ++i) {
            diff += double(plain[i] - windowed[i]) * (plain[i] - windowed[i]);
            norm += double(plain[i]) * plain[i];
        }
        EXPECT_GT(std::sqrt(diff / norm), 0.05) << "a 24-token window must change late logits clearly";
    }

    m.config.architecture = "MistralForCausalLM";
    m.config.model_type = "mistral";
    m.config.sliding_window = window;
    std::unique_ptr<Backend> gpu;
    {
        ScopedEnv partitions("FOLIO_CUDA_PARTITION_SIZE", "16");
        gpu = make_cuda_backend(m, small_options());
    }
    gpu->allocate_kv(layout_for(m));
    const std::vector<std::vector<int32_t>> tables{scattered_table(0, 1, 64, 64)};
    Agreement a;
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    SamplingRow row;
    row.params = &greedy;
    for (int pos = 0; pos < n;) {
        const int len = pos < 40 ? std::min(13, 40 - pos) : 1;
        std::vector<float> lg;
        const ForwardBatch b = make_batch({&seq}, tables, {{0, pos, len}});
        gpu->forward(b, lg);
        compare_rows(lg, std::vector<float>(windowed.begin() + ptrdiff_t(pos + len - 1) * vocab,
                                            windowed.begin() + ptrdiff_t(pos + len) * vocab),
                     vocab, a);
        if (len == 1 && pos + 1 < n) {  // the decode steps again through a CUDA graph: same greedy token
            std::vector<int32_t> ids;
            ASSERT_TRUE(gpu->forward_and_sample(b, {row}, ids));
            EXPECT_EQ(ids.at(0), int(std::max_element(lg.begin(), lg.end()) - lg.begin())) << "position " << pos;
        }
        pos += len;
    }
    expect_parity(a, "stories260K as a Mistral with a 24-token sliding window");
}

std::vector<int> greedy_generate(Backend& backend, const Model& m, const std::vector<int>& prompt, int steps) {
    backend.allocate_kv(layout_for(m));
    std::vector<int> seq = prompt, out;
    const std::vector<std::vector<int32_t>> tables{scattered_table(0, 1, 64, 64)};
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    SamplingRow row;
    row.params = &greedy;
    int pos = 0;
    while (int(out.size()) < steps) {
        const int n = pos == 0 ? int(seq.size()) : 1;
        std::vector<int32_t> ids;
        EXPECT_TRUE(backend.forward_and_sample(make_batch({&seq}, tables, {{0, pos, n}}), {row}, ids)) << "sampled on the device";
        pos += n;
        out.push_back(ids.at(0));
        seq.push_back(ids.at(0));
    }
    return out;
}

TEST(CudaBackend, GreedyGenerationMatchesTheFixtures) {
    for (const char* name : {"stories260K", "tiny-awq", "tiny-llama3", "tiny-qwen2", "tiny-qwen3"}) {
        const Fixture f = load_with_tokenizer_vocab(name);
        auto gpu = make_cuda_backend(*f.model, small_options());  // graphs on: GraphReplaysEqualEagerSteps covers off
        for (const auto& c : f.expected["cases"]) {
            const auto want = c["ids"].get<std::vector<int>>();
            EXPECT_EQ(greedy_generate(*gpu, *f.model, c["prompt_ids"].get<std::vector<int>>(), int(want.size())), want) << name;
        }
    }
}

// Returns the products each linear path ran.
cuda::LinearPathCounts mixed_batches_match_the_cpu_sequence_by_sequence(const char* what) {
    const Fixture f = load("stories260K");
    const Model& m = *f.model;
    auto gpu = make_cuda_backend(m, small_options());
    auto cpu = make_cpu_backend(m, exact_cpu_options());
    gpu->allocate_kv(layout_for(m));
    cpu->allocate_kv(layout_for(m));
    // Three sequences interleaved in one pool: prefill chunks and decodes in the same steps.
    std::vector<int> a, b, c;
    for (int i = 0; i < 40; ++i) {
        a.push_back(1 + (i * 7) % 500);
        b.push_back(1 + (i * 13 + 5) % 500);
        c.push_back(1 + (i * 31 + 2) % 500);
    }
    const std::vector<std::vector<int32_t>> tables{scattered_table(0, 3, 3, 64), scattered_table(1, 3, 3, 64),
                                                   scattered_table(2, 3, 3, 64)};
    const std::vector<std::vector<Step>> steps = {
        {{0, 0, 17}},                              // a: prefill
        {{0, 17, 1}, {1, 0, 20}},                  // a decodes while b prefills
        {{1, 20, 1}, {0, 18, 1}, {2, 0, 33}},      // c prefills across three blocks
        {{2, 33, 1}, {1, 21, 5}, {0, 19, 1}},      // b gets a second chunk
        {{0, 20, 1}, {1, 26, 1}, {2, 34, 1}},      // a pure decode step (CUDA graph path when sampling)
    };
    const cuda::LinearPathCounts made = cuda_linear_path_counts(*gpu);
    Agreement agree;
    for (const auto& st : steps) run_both(*gpu, *cpu, make_batch({&a, &b, &c}, tables, st), m.config.vocab_size, agree);
    expect_parity(agree, what);
    return cuda_linear_path_counts(*gpu).since(made);
}

TEST(CudaBackend, MixedBatchesMatchTheCpuSequenceBySequence) {
    const cuda::LinearPathCounts n = mixed_batches_match_the_cpu_sequence_by_sequence("stories260K mixed batches");
    EXPECT_GT(n.dense_cublas, 0u);
    EXPECT_EQ(n.hand_written(), 0u);
}

TEST(CudaBackend, MixedBatchesMatchTheCpuSequenceBySequenceWithTheHandWrittenKernelsOnly) {
    const HandWrittenKernelsOnly policy;
    const cuda::LinearPathCounts n = mixed_batches_match_the_cpu_sequence_by_sequence("stories260K mixed batches, hand-written kernels only");
    EXPECT_EQ(n.cublas(), 0u);
    EXPECT_GT(n.dense_mma, 0u) << "17- to 38-row steps: the tensor-core kernel";
    EXPECT_GT(n.dense_gemv, 0u) << "the logits rows and the pure decode step: the GEMV";
}

// Two backends fed the same decode batches, one replaying captured graphs: identical tokens, for
// several batch sizes (padding up to the graph's bucket) and contexts crossing blocks.
void graph_replays_equal_eager_steps() {
    const Fixture f = load("stories260K");
    const Model& m = *f.model;
    auto with = make_cuda_backend(m, small_options(true));
    auto without = make_cuda_backend(m, small_options(false));
    with->allocate_kv(layout_for(m));
    without->allocate_kv(layout_for(m));
    std::vector<std::vector<int>> seqs(5);
    std::vector<std::vector<int32_t>> tables;
    for (int s = 0; s < 5; ++s) {
        seqs[size_t(s)] = {1, 10 + s, 20 + s, 30 + 2 * s};
        tables.push_back(scattered_table(s, 5, 12, 64));
    }
    std::vector<const std::vector<int>*> ptrs;
    for (auto& s : seqs) ptrs.push_back(&s);
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    // Prefill everyone, then decode a growing subset for 24 steps.
    std::vector<Step> pre;
    for (int s = 0; s < 5; ++s) pre.push_back({s, 0, 4});
    std::vector<SamplingRow> rows(5);
    for (auto& r : rows) r.params = &greedy;
    std::vector<int32_t> x, y;
    ASSERT_TRUE(with->forward_and_sample(make_batch(ptrs, tables, pre), rows, x));
    ASSERT_TRUE(without->forward_and_sample(make_batch(ptrs, tables, pre), rows, y));
    ASSERT_EQ(x, y);
    for (int s = 0; s < 5; ++s) seqs[size_t(s)].push_back(x[size_t(s)]);
    for (int step = 0; step < 24; ++step) {
        const int active = 1 + step % 5;
        std::vector<Step> st;
        for (int s = 0; s < active; ++s) st.push_back({s, int(seqs[size_t(s)].size()) - 1, 1});
        std::vector<SamplingRow> r(static_cast<size_t>(active));
        for (auto& q : r) q.params = &greedy;
        ASSERT_TRUE(with->forward_and_sample(make_batch(ptrs, tables, st), r, x));
        ASSERT_TRUE(without->forward_and_sample(make_batch(ptrs, tables, st), r, y));
        ASSERT_EQ(x, y) << "step " << step;
        for (int s = 0; s < active; ++s) seqs[size_t(s)].push_back(x[size_t(s)]);
        // The others fall behind: re-feed their last token next time they are active.
        for (int s = active; s < 5; ++s) seqs[size_t(s)].push_back(seqs[size_t(s)].back());
    }
}

TEST(CudaBackend, GraphReplaysEqualEagerSteps) {
    graph_replays_equal_eager_steps();  // cuBLAS calls captured into the graphs
}

TEST(CudaBackend, GraphReplaysEqualEagerStepsWithTheHandWrittenKernelsOnly) {
    const HandWrittenKernelsOnly policy;
    graph_replays_equal_eager_steps();  // dense_gemv's launches captured instead
}

TEST(CudaBackend, DeviceSamplingEqualsHostSamplingOfTheSameLogits) {
    // forward() hands the logits to the host sampler; forward_and_sample() samples on the device
    // (through CUDA graphs for these decode steps). Same logits, same seeds: same tokens.
    const Fixture f = load("tiny-awq");
    const Model& m = *f.model;
    auto gpu = make_cuda_backend(m, small_options());
    gpu->allocate_kv(layout_for(m));
    std::vector<std::vector<int>> seqs = {{1, 15043, 29892}, {1, 450, 4996}, {1, 3118, 2501}};
    std::vector<std::vector<int32_t>> tables;
    for (int s = 0; s < 3; ++s) tables.push_back(scattered_table(s, 3, 8, 64));
    std::vector<const std::vector<int>*> ptrs{&seqs[0], &seqs[1], &seqs[2]};
    std::vector<SamplingParams> params(3);
    params[0].temperature = 0.8f;
    params[0].top_p = 0.9f;
    params[1].top_k = 40;
    params[1].min_p = 0.05f;
    params[2].temperature = 1.2f;
    params[2].repetition_penalty = 1.3f;  // penalties: the eager path
    std::vector<float> logits;
    std::vector<int32_t> ids;
    std::vector<Step> pre{{0, 0, 3}, {1, 0, 3}, {2, 0, 3}};
    gpu->forward(make_batch(ptrs, tables, pre), logits);
    Sampler host;
    for (int step = 0; step < 6; ++step) {
        std::vector<Step> st;
        for (int s = 0; s < 3; ++s) st.push_back({s, int(seqs[size_t(s)].size()) - 1, 1});
        const ForwardBatch b = make_batch(ptrs, tables, st);
        std::vector<SamplingRow> rows(3);
        for (int s = 0; s < 3; ++s) {
            rows[size_t(s)].params = &params[size_t(s)];
            rows[size_t(s)].prompt_ids = seqs[size_t(s)].data();
            rows[size_t(s)].num_prompt_ids = 3;
            rows[size_t(s)].output_ids = seqs[size_t(s)].data() + 3;
            rows[size_t(s)].num_output_ids = int(seqs[size_t(s)].size()) - 3;
            rows[size_t(s)].seed = 77 + uint64_t(s);
            rows[size_t(s)].step = uint64_t(step);
        }
        gpu->forward(b, logits);  // rewrites the same KV slots with the same values
        std::vector<int32_t> expect;
        for (int s = 0; s < 3; ++s) expect.push_back(host.sample(&logits[size_t(s) * m.config.vocab_size], m.config.vocab_size, rows[size_t(s)]));
        ASSERT_TRUE(gpu->forward_and_sample(b, rows, ids)) << "step " << step;
        EXPECT_EQ(ids, expect) << "step " << step;
        // Without the penalised row the batch qualifies for a CUDA graph.
        std::vector<SamplingRow> two(rows.begin(), rows.begin() + 2);
        std::vector<Step> st2(st.begin(), st.begin() + 2);
        std::vector<int32_t> ids2;
        ASSERT_TRUE(gpu->forward_and_sample(make_batch(ptrs, tables, st2), two, ids2)) << "step " << step;
        EXPECT_EQ(ids2, std::vector<int32_t>(expect.begin(), expect.begin() + 2)) << "step " << step << " (graph)";
        for (int s = 0; s < 3; ++s) seqs[size_t(s)].push_back(ids[size_t(s)]);
    }
}

TEST(CudaBackend, CopiedBlocksGiveTheSameContinuation) {
    const Fixture f = load("stories260K");
    const Model& m = *f.model;
    auto gpu = make_cuda_backend(m, small_options());
    gpu->allocate_kv(layout_for(m));
    std::vector<int> seq;
    for (int i = 0; i < 21; ++i) seq.push_back(1 + i * 11 % 400);
    const std::vector<int32_t> orig{5, 9}, copy{40, 41};
    std::vector<float> l1, l2;
    gpu->forward(make_batch({&seq}, {orig}, {{0, 0, 20}}), l1);
    gpu->copy_blocks({{5, 40}, {9, 41}});
    gpu->forward(make_batch({&seq}, {orig}, {{0, 20, 1}}), l1);
    gpu->forward(make_batch({&seq}, {copy}, {{0, 20, 1}}), l2);
    EXPECT_EQ(l1, l2);
    EXPECT_THROW(gpu->copy_blocks({{0, 64}}), Error);
    // Pairs run in parallel: a block written twice, or read while the same call overwrites it, is refused.
    for (const std::vector<std::pair<int32_t, int32_t>>& bad :
         {std::vector<std::pair<int32_t, int32_t>>{{1, 3}, {2, 3}}, {{1, 2}, {2, 3}}, {{2, 3}, {1, 2}}, {{4, 4}}}) {
        try {
            gpu->copy_blocks(bad);
            ADD_FAILURE() << "accepted pairs starting " << bad[0].first << " -> " << bad[0].second;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("copy_blocks"), std::string::npos) << e.what();
        }
    }
    // A fork of a 160-token conversation: its 10 blocks copied in one call, then the same next token
    // decoded through either table (blocks 10 and 43 take the new token).
    std::vector<int> conv;
    for (int i = 0; i < 161; ++i) conv.push_back(1 + i * 7 % 500);
    std::vector<int32_t> src_table, dst_table;
    std::vector<std::pair<int32_t, int32_t>> fork;
    for (int i = 0; i < 10; ++i) {
        src_table.push_back(i);
        dst_table.push_back(63 - i);
        fork.push_back({i, 63 - i});
    }
    src_table.push_back(10);
    dst_table.push_back(43);
    std::vector<float> a1, a2;
    for (int pos = 0; pos < 160; pos += 80) gpu->forward(make_batch({&conv}, {src_table}, {{0, pos, 80}}), a1);
    gpu->copy_blocks(fork);
    gpu->forward(make_batch({&conv}, {src_table}, {{0, 160, 1}}), a1);
    gpu->forward(make_batch({&conv}, {dst_table}, {{0, 160, 1}}), a2);
    EXPECT_EQ(a1, a2);
}

TEST(CudaBackend, TwoHundredFiftySixSequencesDecodeThroughGraphs) {
    // The engine's largest decode batch (max_num_seqs 256): 250 decoding sequences padded to the
    // 256 bucket. The first run of a bucket is eager and captured, the second replays the graph:
    // the same tokens, and the logits of a sample of them match the CPU backend.
    const Fixture f = load("stories260K");
    const Model& m = *f.model;
    BackendOptions o = small_options(true);
    o.max_num_batched_tokens = 512;
    o.max_num_seqs = 256;
    auto gpu = make_cuda_backend(m, o);
    const KvLayout layout = layout_for(m, 256);
    gpu->allocate_kv(layout);
    const int S = 250, V = m.config.vocab_size;
    std::vector<std::vector<int>> seqs(S);
    std::vector<std::vector<int32_t>> tables(S);
    std::vector<const std::vector<int>*> ptrs;
    std::vector<Step> pre, decode;
    for (int s = 0; s < S; ++s) {
        seqs[size_t(s)] = {1, 2 + s % 400, 3 + (s * 7) % 500};
        tables[size_t(s)] = {int32_t(255 - s)};
        ptrs.push_back(&seqs[size_t(s)]);
        pre.push_back({s, 0, 2});
        decode.push_back({s, 2, 1});
    }
    std::vector<float> logits;
    gpu->forward(make_batch(ptrs, tables, pre), logits);
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    const std::vector<SamplingRow> rows(S, SamplingRow{&greedy});
    const ForwardBatch b = make_batch(ptrs, tables, decode);
    std::vector<int32_t> eager, replayed;
    ASSERT_TRUE(gpu->forward_and_sample(b, rows, eager));     // eager, then captured
    ASSERT_TRUE(gpu->forward_and_sample(b, rows, replayed));  // replayed (the KV slots get the same values again)
    EXPECT_EQ(eager, replayed);
    std::vector<Step> sample, cpu_pre;
    for (int s = 0; s < S; s += 41) {
        sample.push_back(decode[size_t(s)]);
        cpu_pre.push_back(pre[size_t(s)]);
    }
    auto cpu = make_cpu_backend(m, exact_cpu_options());
    cpu->allocate_kv(layout);
    cpu->forward(make_batch(ptrs, tables, cpu_pre), logits);
    Agreement a;
    run_both(*gpu, *cpu, make_batch(ptrs, tables, sample), V, a);
    expect_parity(a, "stories260K, a 250-sequence decode batch");
}

TEST(CudaBackend, ContextsUpToTheModelMaximum) {
    // stories260K's whole 512-token context: prefill to 500, then decode to 512 with 16-key
    // partitions (32 per sequence at the end), against the CPU at every step; one more is refused.
    const Fixture f = load("stories260K");
    const Model& m = *f.model;
    ASSERT_EQ(m.context_length(), 512);
    std::unique_ptr<Backend> gpu;
    {
        ScopedEnv partitions("FOLIO_CUDA_PARTITION_SIZE", "16");
        gpu = make_cuda_backend(m, small_options());
    }
    auto cpu = make_cpu_backend(m, exact_cpu_options());
    gpu->allocate_kv(layout_for(m, 40));
    cpu->allocate_kv(layout_for(m, 40));
    std::vector<int> seq;
    for (int i = 0; i < 513; ++i) seq.push_back(1 + (i * 37 + i / 7) % 500);
    const std::vector<std::vector<int32_t>> tables{scattered_table(0, 1, 33, 40)};
    std::vector<float> ignore;
    for (int pos = 0; pos < 500; pos += 96) {
        const int n = std::min(96, 500 - pos);
        gpu->forward(make_batch({&seq}, tables, {{0, pos, n}}), ignore);
        cpu->forward(make_batch({&seq}, tables, {{0, pos, n}}), ignore);
    }
    Agreement a;
    for (int pos = 500; pos < 512; ++pos) run_both(*gpu, *cpu, make_batch({&seq}, tables, {{0, pos, 1}}), m.config.vocab_size, a);
    expect_parity(a, "stories260K, positions 500..511 of its 512-token context");
    try {
        gpu->forward(make_batch({&seq}, tables, {{0, 512, 1}}), ignore);  // position 512 needs a 33rd block
        FAIL() << "a position beyond the model's context was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("context length"), std::string::npos) << e.what();
    }
}

TEST(CudaBackend, StepsWithMorePenalisedIdsThanTheBufferSampleOnTheHost) {
    // Three rows whose histories list more ids (repeats counted) than the step's penalty buffer
    // holds (8 sequences x 512 ids): the backend declines to sample them, and the engine's step
    // (sample_step) samples them on the host, with the same result.
    const Fixture f = load("stories260K");
    const Model& m = *f.model;
    auto gpu = make_cuda_backend(m, small_options());
    gpu->allocate_kv(layout_for(m));
    std::vector<std::vector<int>> seqs = {{1, 5, 9}, {1, 7, 11}, {1, 13, 17}};
    std::vector<std::vector<int32_t>> tables = {{0}, {1}, {2}};
    std::vector<const std::vector<int>*> ptrs{&seqs[0], &seqs[1], &seqs[2]};
    std::vector<float> logits;
    gpu->forward(make_batch(ptrs, tables, {{0, 0, 2}, {1, 0, 2}, {2, 0, 2}}), logits);
    std::vector<int32_t> history;
    for (int i = 0; i < 1700; ++i) history.push_back(1 + (i * 13) % 511);
    SamplingParams p;
    p.temperature = 0.9f;
    p.repetition_penalty = 1.3f;
    p.frequency_penalty = 0.4f;
    std::vector<SamplingRow> rows(3);
    for (int s = 0; s < 3; ++s) {
        rows[size_t(s)].params = &p;
        rows[size_t(s)].prompt_ids = history.data();
        rows[size_t(s)].num_prompt_ids = 1000;
        rows[size_t(s)].output_ids = history.data() + 1000;
        rows[size_t(s)].num_output_ids = 700;
        rows[size_t(s)].seed = 5 + uint64_t(s);
        rows[size_t(s)].step = 700;
    }
    ASSERT_GT(cuda::penalty_ids_bound(rows), 8 * 512);
    const ForwardBatch b = make_batch(ptrs, tables, {{0, 2, 1}, {1, 2, 1}, {2, 2, 1}});
    gpu->forward(b, logits);
    Sampler host;
    std::vector<int32_t> expect, ids;
    for (int s = 0; s < 3; ++s) expect.push_back(host.sample(&logits[size_t(s) * m.config.vocab_size], m.config.vocab_size, rows[size_t(s)]));
    EXPECT_FALSE(gpu->forward_and_sample(b, rows, ids)) << "the device sampled a step whose penalty ids overflow its buffer";
    EXPECT_TRUE(ids.empty());
    Sampler engine_sampler;
    std::vector<float> scratch, copies;
    std::vector<TokenLogprobs> logprobs;
    sample_step(*gpu, engine_sampler, b, StepSampling{rows, {}}, scratch, copies, ids, logprobs);
    EXPECT_EQ(ids, expect);
}

TEST(CudaBackend, BadLinearPolicySwitchesAreRefusedByName) {
    const Fixture f = load("stories260K");
    for (const auto& [name, value] : {std::pair{"FOLIO_CUDA_CUBLAS", "2"}, std::pair{"FOLIO_CUDA_CUBLAS", "yes"},
                                      std::pair{"FOLIO_AWQ_DEQUANT_MIN_ROWS", "-1"}, std::pair{"FOLIO_AWQ_DEQUANT_MIN_ROWS", "512x"},
                                      std::pair{"FOLIO_CUDA_PARTITION_SIZE", "512k"}, std::pair{"FOLIO_CUDA_PARTITION_SIZE", "abc"}}) {
        const ScopedEnv bad(name, value);
        try {
            make_cuda_backend(*f.model, small_options());
            ADD_FAILURE() << name << "=" << value << " was accepted";
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(name), std::string::npos) << msg;
            EXPECT_NE(msg.find(std::string("\"") + value + "\""), std::string::npos) << msg;
        }
    }
}

TEST(CudaBackend, RejectsBadBatchesAndSaysWhenTheModelDoesNotFit) {
    const Fixture f = load("stories260K");
    const Model& m = *f.model;
    auto gpu = make_cuda_backend(m, small_options());
    std::vector<float> logits;
    std::vector<int> seq{1, 2, 3};
    EXPECT_THROW(gpu->forward(make_batch({&seq}, {{0}}, {{0, 0, 3}}), logits), Error);  // before allocate_kv
    gpu->allocate_kv(layout_for(m, 8));
    EXPECT_THROW(gpu->forward(make_batch({&seq}, {{8}}, {{0, 0, 3}}), logits), Error);  // block outside the pool
    std::vector<int> bad{1, 600};
    EXPECT_THROW(gpu->forward(make_batch({&bad}, {{0}}, {{0, 0, 2}}), logits), Error);  // token outside the vocabulary
    std::vector<int> big(200, 1);
    EXPECT_THROW(gpu->forward(make_batch({&big}, {scattered_table(0, 1, 8, 8)}, {{0, 0, 100}}), logits), Error);  // > 96 tokens
    try {
        gpu->plan_kv_blocks(layout_for(m), 0, int64_t(1) << 40);
        FAIL() << "an impossible pool was planned";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("weights"), std::string::npos) << msg;
        EXPECT_NE(msg.find("minimum KV cache"), std::string::npos) << msg;
        EXPECT_NE(msg.find("GB"), std::string::npos) << msg;
    }
    EXPECT_GE(gpu->plan_kv_blocks(layout_for(m), 0, 1), 1);
    const MemoryInfo mem = gpu->memory();
    EXPECT_GT(mem.weights, 0u);
    EXPECT_GT(mem.kv_cache, 0u);
    EXPECT_GE(mem.device_total, mem.device_used);
}

}  // namespace
}  // namespace folio
