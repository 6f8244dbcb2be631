// The CUDA backend's memory arithmetic with the numbers of the target card (RTX 4090, 24564 MiB)
// and Llama-2-7B shapes, and the same arithmetic through the backend in the SIMT harness, whose
// device memory size is set per test.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/model/dummy_model.h"
#include "engine/model/model.h"
#include "kernels/common/cuda_compat.h"
#include "kernels/cublas_gemm.h"
#include "kernels/cuda_backend.h"
#include "kernels/device_model.h"
#include "kernels/linear_runner.h"
#include "kernels/memory_plan.h"
#include "kernels/model_runner.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"

namespace folio::cuda {
namespace {

constexpr uint64_t kRtx4090 = uint64_t(24564) << 20;  // what cudaMemGetInfo reports as total
constexpr uint64_t kKvPerToken7B = 2ull * 32 * 32 * 128 * 2;  // K and V, 32 layers, 32 heads of 128, fp16: 512 KiB

// A model with the shapes of dummy:NAME and no weights behind them (only sizes are read).
Model shapes_of(const std::string& name) {
    Model m;
    m.config = dummy_config(name);
    const ModelConfig& c = m.config;
    static const char embed_marker = 0, head_marker = 0;  // distinct pointers: an untied lm_head
    auto linear = [&](int in, int out) {
        Linear l;
        l.in = in;
        l.out = out;
        if (c.quant.method == QuantConfig::Method::Awq) {
            l.kind = Linear::Kind::Awq;
            l.awq.in = in;
            l.awq.out = out;
            l.awq.group_size = c.quant.group_size;
        } else {
            l.dense = DenseMatrix{c.torch_dtype, out, in, nullptr};
        }
        return l;
    };
    m.weights.embed_tokens = FloatTensor{DType::F16, {c.vocab_size, c.hidden_size}, &embed_marker};
    for (int i = 0; i < c.num_layers; ++i) {
        LayerWeights L;
        const int q = c.num_heads * c.head_dim, kv = c.num_kv_heads * c.head_dim;
        L.q_proj = linear(c.hidden_size, q);
        L.k_proj = linear(c.hidden_size, kv);
        L.v_proj = linear(c.hidden_size, kv);
        L.o_proj = linear(q, c.hidden_size);
        L.gate_proj = linear(c.hidden_size, c.intermediate_size);
        L.up_proj = linear(c.hidden_size, c.intermediate_size);
        L.down_proj = linear(c.intermediate_size, c.hidden_size);
        m.weights.layers.push_back(L);
    }
    m.weights.lm_head.kind = Linear::Kind::Dense;
    m.weights.lm_head.in = c.hidden_size;
    m.weights.lm_head.out = c.vocab_size;
    m.weights.lm_head.dense = DenseMatrix{DType::F16, c.vocab_size, c.hidden_size, &head_marker};
    return m;
}

RunnerConfig limits(int max_tokens, int max_seqs, int max_model_len) {
    RunnerConfig rc;
    rc.max_tokens = max_tokens;
    rc.max_seqs = max_seqs;
    rc.max_model_len = max_model_len;
    return rc;
}

TEST(MemoryPlan, Llama2_7bAwqWeightsAreTheIssuesThreePointNineGigabytes) {
    const Model m = shapes_of("llama-2-7b-awq");
    // Per layer 4*4096*4096 + 3*4096*11008 = 202,375,168 weights: 4 bits each, plus per group of 128
    // inputs and output column a 4-bit zero and an fp16 scale (2.5 bytes), plus two fp32 norms.
    const uint64_t layer = 202375168ull / 2 + 202375168ull / 128 * 5 / 2 + 2 * 4096 * 4;
    // Embeddings and lm_head in fp16, final norm in fp32.
    const uint64_t expect = 32 * layer + 2ull * 32000 * 4096 * 2 + 4096 * 4;
    EXPECT_EQ(device_weight_bytes(m), expect);
    EXPECT_EQ(gb(double(expect)), "3.9 GB");
    EXPECT_EQ(kv_bytes_for_tokens(m, 1), kKvPerToken7B);
    EXPECT_EQ(largest_fused_awq_elems(m), size_t(4096) * 2 * 11008);  // gate and up side by side
}

TEST(MemoryPlan, ActivationBuffersFor2048And8192BatchedTokens) {
    const ModelConfig c = dummy_config("llama-2-7b-awq");
    // residual fp32 + normed, attn, proj fp16 [T, 4096]; qkv [T, 12288]; gate_up [T, 22016]; act
    // [T, 11008]; final [S, 4096]; fp32 logits [S, 32000]; decode workspace 256 seqs * 32 heads *
    // 8 partitions of 512 keys * (128 + 2) floats for a 4096-token context.
    auto expect = [](uint64_t T) {
        return T * 4096 * 4 + T * 4096 * 2 * 3 + T * 12288 * 2 + T * 22016 * 2 + T * 11008 * 2 + 256ull * 4096 * 2 +
               256ull * 32000 * 4 + 256ull * 32 * 8 * 130 * 4;
    };
    EXPECT_EQ(ModelRunner::buffer_bytes(c, limits(2048, 256, 4096), 4096), expect(2048));  // 338 MB
    EXPECT_EQ(ModelRunner::buffer_bytes(c, limits(8192, 256, 4096), 4096), expect(8192));  // 1.15 GB
    // Mistral v0.1's 4096-token window keeps the decode workspace at 8 partitions for 32k contexts.
    ModelConfig mistral = dummy_config("mistral-7b-awq");
    const size_t plain = ModelRunner::buffer_bytes(mistral, limits(2048, 256, 32768), 32768);
    mistral.sliding_window = 4096;
    RunnerConfig windowed = limits(2048, 256, 32768);
    windowed.sliding_window = attention_window(mistral);
    EXPECT_EQ(windowed.sliding_window, 4096);
    EXPECT_EQ(plain - ModelRunner::buffer_bytes(mistral, windowed, 32768), 256ull * 32 * (64 - 8) * 130 * 4);
}

TEST(MemoryPlan, A7bAwqModelOnAnRtx4090At90PercentLeavesEightFullContexts) {
    const Model m = shapes_of("llama-2-7b-awq");
    MemoryNeed need;
    need.weights = device_weight_bytes(m);
    // Device build: the 2048-token buffers, the AWQ dequantisation buffer (fp16 gate/up) and cuBLAS's workspace.
    need.activations = ModelRunner::buffer_bytes(m.config, limits(2048, 256, 4096), 4096) + 4096ull * 22016 * 2 + (32ull << 20);
    need.min_kv = kv_bytes_for_tokens(m, 4096);
    need.min_kv_what = "one 4096-token sequence";
    const uint64_t desktop = 1000000000;  // the compositor, the CUDA context
    DeviceMemory now{kRtx4090, kRtx4090 - desktop};
    EXPECT_NO_THROW(check_fits("NVIDIA GeForce RTX 4090", need, now, 0.9, 0));
    // Loaded: the pool gets 90% of the card less everything in use.
    now.free -= need.weights + need.activations;
    const uint64_t per_block = 16 * kKvPerToken7B;
    const int64_t blocks = plan_kv_pool("NVIDIA GeForce RTX 4090", need, now, 0.9, per_block, 0, 256);
    EXPECT_EQ(blocks, int64_t((0.9 * double(kRtx4090) - double(desktop + need.weights + need.activations)) / double(per_block)));
    EXPECT_EQ(blocks, 2114);  // 33,824 tokens: eight full 4096-token conversations, or many shorter ones
    // A KV budget caps it (4 GiB: 512 blocks); 8192 batched tokens cost about 0.8 GB (96 blocks).
    EXPECT_EQ(plan_kv_pool("RTX 4090", need, now, 0.9, per_block, uint64_t(4) << 30, 256), 512);
    MemoryNeed big = need;
    big.activations = ModelRunner::buffer_bytes(m.config, limits(8192, 256, 4096), 4096) + 4096ull * 22016 * 2 + (32ull << 20);
    DeviceMemory after_big{kRtx4090, kRtx4090 - desktop - big.weights - big.activations};
    EXPECT_EQ(plan_kv_pool("RTX 4090", big, after_big, 0.9, per_block, 0, 256), 2018);
}

TEST(MemoryPlan, TooBigModelsAreRefusedWithEverySizeNamed) {
    // 13B in fp16 (26 GB) on the 4090: refused before anything is uploaded.
    const Model m = shapes_of("llama-2-13b");
    MemoryNeed need;
    need.weights = device_weight_bytes(m);
    need.activations = 400000000;
    need.min_kv = kv_bytes_for_tokens(m, 4096);
    need.min_kv_what = "one 4096-token sequence";
    try {
        check_fits("NVIDIA GeForce RTX 4090", need, DeviceMemory{kRtx4090, kRtx4090 - 500000000}, 0.9, 0);
        FAIL() << "a 26 GB model was accepted on a 24 GB card";
    } catch (const Error& e) {
        const std::string msg = e.what();
        for (const char* part : {"does not fit on NVIDIA GeForce RTX 4090", "weights 26.0 GB", "activations 400 MB",
                                 "minimum KV cache 3.4 GB (one 4096-token sequence)", "> 22.7 GB usable",
                                 "gpu_memory_utilization 90% of 25.8 GB", "500 MB held by the CUDA context and other processes",
                                 "raise gpu_memory_utilization", "AWQ"})
            EXPECT_NE(msg.find(part), std::string::npos) << part << " missing in: " << msg;
    }
    // 7B in fp16 (13.5 GB) fits an empty card, but not beside a game holding 10 GB.
    const Model m7 = shapes_of("llama-2-7b");
    need.weights = device_weight_bytes(m7);
    need.min_kv = kv_bytes_for_tokens(m7, 4096);
    EXPECT_NO_THROW(check_fits("RTX 4090", need, DeviceMemory{kRtx4090, kRtx4090 - 500000000}, 0.9, 0));
    try {
        check_fits("RTX 4090", need, DeviceMemory{kRtx4090, kRtx4090 - 10500000000ull}, 0.9, 0);
        FAIL() << "accepted beside another process";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("10.5 GB held by the CUDA context and other processes"), std::string::npos) << e.what();
    }
    // A budget below one sequence says so.
    EXPECT_THROW(plan_kv_pool("RTX 4090", need, DeviceMemory{kRtx4090, kRtx4090 / 2}, 0.9, 16 * kKvPerToken7B, 100 << 20, 256),
                 Error);
}

TEST(MemoryPlan, TheEstimateIsWhatTheRunnerAllocates) {
    auto model = test::load_weights_only(test::fixture_path("models/tiny-awq"));
    const DeviceModel dm = upload_model(*model, nullptr, {});
    EXPECT_EQ(dm.bytes, device_weight_bytes(*model) + dm.rope_bytes());  // what was uploaded is what was estimated
    for (const char* family : {"tiny-qwen2", "tiny-qwen3"}) {  // with q/k/v biases, with q/k head norms
        auto qwen = test::load_weights_only(test::fixture_path(std::string("models/") + family));
        const DeviceModel dq = upload_model(*qwen, nullptr, {});
        EXPECT_EQ(dq.bytes, device_weight_bytes(*qwen) + dq.rope_bytes()) << family;
    }
    for (const RunnerConfig& rc : {limits(96, 8, 512), limits(300, 33, 200)}) {
        ModelRunner runner(model->config, dm, rc, 4);
        const KvLayout layout{model->config.num_layers, model->config.num_kv_heads, model->config.head_dim, 16, 4};
        const std::vector<void*> pools(size_t(model->config.num_layers), nullptr);
        runner.set_kv(layout, pools, pools, rc.max_model_len);
        EXPECT_EQ(runner.activation_bytes() - runner.linear_workspace_bytes(),
                  ModelRunner::buffer_bytes(model->config, rc, rc.max_model_len));
    }
}

TEST(MemoryPlan, TheLinearWorkspacesAreWhatThePolicyNeeds) {
    // fixed_workspace_bytes (the estimate the backend checks before uploading) against what a
    // runner holds: cuBLAS's 32 MiB only when a product can reach cuBLAS, the fp16 copy of the
    // largest AWQ matrix only when a step can reach the dequantisation threshold; split-K scratch
    // (a few MiB at most) on top.
    auto awq = test::load_weights_only(test::fixture_path("models/tiny-awq"));
    auto dense = test::load_weights_only(test::fixture_path("models/stories260K"));
    const DeviceModel awq_dm = upload_model(*awq, nullptr, {}), dense_dm = upload_model(*dense, nullptr, {});
    LinearPolicy hand_written;
    hand_written.use_cublas = false;
    hand_written.awq_dequant_min_rows = 0;
    LinearPolicy awq_only = hand_written;  // dense linears hand-written, large AWQ products dequantised
    awq_only.awq_dequant_min_rows = 512;
    const size_t cublas = CublasGemm::kWorkspaceBytes, fp16_awq = awq_dm.largest_awq_elems * 2;
    ASSERT_GT(fp16_awq, 0u);
    struct Case {
        const char* what;
        const DeviceModel& dm;
        int max_rows;
        LinearPolicy policy;
        size_t fixed;
    };
    for (const Case& c : {Case{"AWQ, default, 600 rows", awq_dm, 600, LinearPolicy{}, cublas + fp16_awq},
                          Case{"AWQ, default, 96 rows", awq_dm, 96, LinearPolicy{}, cublas},
                          Case{"AWQ, hand-written", awq_dm, 600, hand_written, 0},
                          Case{"AWQ, dequantise only", awq_dm, 600, awq_only, cublas + fp16_awq},
                          Case{"AWQ, dequantise only, 96 rows", awq_dm, 96, awq_only, 0},
                          Case{"dense, default", dense_dm, 600, LinearPolicy{}, cublas},
                          Case{"dense, dequantise only", dense_dm, 600, awq_only, 0}}) {
        SCOPED_TRACE(c.what);
        EXPECT_EQ(LinearRunner::fixed_workspace_bytes(c.dm.largest_awq_elems, c.max_rows, c.policy), c.fixed);
        const LinearRunner runner(c.dm, c.max_rows, 4, c.policy);
        EXPECT_GE(runner.workspace_bytes(), c.fixed);
        EXPECT_LT(runner.workspace_bytes() - c.fixed, size_t(4) << 20);
    }
}

#if defined(FOLIO_SIMT)
// The same arithmetic through the backend: the harness's device has as much memory as a test says.
class HarnessMemory {
public:
    explicit HarnessMemory(size_t total) { simt::set_device_memory(total); }
    ~HarnessMemory() { simt::set_device_memory(size_t(8) << 30); }
};

TEST(MemoryPlan, TheBackendChecksBeforeUploadingAndSizesThePoolFromWhatIsLeft) {
    auto model = test::load_weights_only(test::fixture_path("models/stories260K"));
    BackendOptions o;
    o.max_num_batched_tokens = 96;
    o.max_num_seqs = 8;
    {
        HarnessMemory card(1000000);  // 1 MB: the weights (0.5 MB) fit, not with activations and a 512-token sequence
        try {
            make_cuda_backend(*model, o);
            FAIL() << "loaded onto a 1 MB device";
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("does not fit on SIMT harness"), std::string::npos) << msg;
            EXPECT_NE(msg.find("(one 512-token sequence)"), std::string::npos) << msg;
        }
        EXPECT_EQ(simt::device_bytes_in_use(), 0u) << "nothing may stay allocated after the refusal";
    }
    HarnessMemory card(size_t(64) << 20);
    auto gpu = make_cuda_backend(*model, o);
    const KvLayout layout{model->config.num_layers, model->config.num_kv_heads, model->config.head_dim, 16, 0};
    const double left = 0.9 * double(size_t(64) << 20) - double(simt::device_bytes_in_use());
    EXPECT_EQ(gpu->plan_kv_blocks(layout, 0, 32), int64_t(left / double(layout.bytes_per_block(2))));
}
#else
// The same through the backend on a real device, whose size the test cannot choose: a utilization too
// small for anything is refused before any upload, and the pool gets gpu_memory_utilization of the
// card less everything in use (ours and the CUDA context's).
DeviceMemory device_memory_now() {
    size_t free_b = 0, total_b = 0;
    EXPECT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    return {total_b, free_b};
}

TEST(MemoryPlan, TheBackendChecksBeforeUploadingAndSizesThePoolFromWhatIsLeft) {
    auto model = test::load_weights_only(test::fixture_path("models/stories260K"));
    BackendOptions o;
    o.max_num_batched_tokens = 96;
    o.max_num_seqs = 8;
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the context exists before the first reading
    const DeviceMemory before = device_memory_now();
    o.gpu_memory_utilization = 1e-6f;  // ~143 KB of an H200: not even the weights (0.5 MB)
    try {
        make_cuda_backend(*model, o);
        FAIL() << "loaded with gpu_memory_utilization 1e-6";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("does not fit on "), std::string::npos) << msg;
        EXPECT_NE(msg.find("(one 512-token sequence)"), std::string::npos) << msg;
    }
    // cudaMemGetInfo counts in 2 MiB pages: a refusal may not keep one.
    EXPECT_LE(int64_t(before.free) - int64_t(device_memory_now().free), int64_t(2) << 20) << "memory stayed allocated after the refusal";
    o.gpu_memory_utilization = 0.9f;
    auto gpu = make_cuda_backend(*model, o);
    const KvLayout layout{model->config.num_layers, model->config.num_kv_heads, model->config.head_dim, 16, 0};
    const DeviceMemory now = device_memory_now();
    const double left = 0.9 * double(now.total) - double(now.total - now.free);
    EXPECT_NEAR(double(gpu->plan_kv_blocks(layout, 0, 32)), std::floor(left / double(layout.bytes_per_block(2))), 1.0);
}
#endif

}  // namespace
}  // namespace folio::cuda
