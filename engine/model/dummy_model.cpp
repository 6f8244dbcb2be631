#include "engine/model/dummy_model.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sys/mman.h>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/core/thread_pool.h"
#include "engine/model/architectures.h"
#include "engine/model/weights_loader.h"

namespace folio {

namespace {

struct Shape {
    int hidden, intermediate, layers, heads, kv_heads, vocab, context;
    float rope_theta;
    bool tied;
    const char* type;  // config.json's model_type: names the architecture
    int head_dim = 0;  // 0: hidden / heads
    bool llama3_rope = false;  // Llama-3.1's rope_scaling (factor 8, 1..4, 8192)
    float rms_norm_eps = 1e-5f;
};

const std::map<std::string, Shape>& shapes() {
    static const std::map<std::string, Shape> s = {
        {"tiny", {256, 688, 4, 8, 4, 32000, 2048, 10000.0f, false, "llama"}},
        {"llama-0.8b", {2048, 5632, 16, 16, 4, 32000, 2048, 10000.0f, false, "llama"}},
        {"llama-2-7b", {4096, 11008, 32, 32, 32, 32000, 4096, 10000.0f, false, "llama"}},
        {"llama-2-13b", {5120, 13824, 40, 40, 40, 32000, 4096, 10000.0f, false, "llama"}},
        {"mistral-7b", {4096, 14336, 32, 32, 8, 32000, 32768, 1000000.0f, false, "mistral"}},
        {"llama-3-8b", {4096, 14336, 32, 32, 8, 128256, 8192, 500000.0f, false, "llama"}},
        // The config.json shapes of Llama-3.1-8B, Qwen2.5-7B (q/k/v biases, vocab padded to 152064)
        // and Qwen3-8B (q/k head norms, head_dim 128); the Qwens' rms_norm_eps is 1e-6.
        {"llama-3.1-8b", {4096, 14336, 32, 32, 8, 128256, 131072, 500000.0f, false, "llama", 0, true}},
        {"qwen2.5-7b", {3584, 18944, 28, 28, 4, 152064, 32768, 1000000.0f, false, "qwen2", 0, false, 1e-6f}},
        {"qwen3-8b", {4096, 12288, 36, 32, 8, 151936, 40960, 1000000.0f, false, "qwen3", 128, false, 1e-6f}},
    };
    return s;
}

uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Zero-filled memory straight from the kernel: large models are generated in place without a copy.
std::shared_ptr<void> allocate(size_t bytes) {
    if (bytes == 0) bytes = 1;
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        throw Error("cannot allocate " + std::to_string(bytes >> 20) + " MiB for dummy weights: not enough memory");
    return std::shared_ptr<void>(p, [bytes](void* q) { ::munmap(q, bytes); });
}

class Generator {
public:
    Generator(uint64_t seed, uint64_t total_bytes, const LoadProgressFn& progress)
        : seed_(seed), total_(total_bytes), progress_(progress) {}

    // Fills n values; value i of tensor `id` comes from chunk-seeded streams so threads do not matter.
    template <class Fill>
    void fill(int64_t n, Fill&& f) {
        constexpr int64_t kChunk = 1 << 16;
        const uint64_t id = next_id_++;
        const int64_t chunks = (n + kChunk - 1) / kChunk;
        pool_.run(chunks, [&](int64_t c) {
            uint64_t state = splitmix64(seed_ ^ splitmix64(id * 0x100000001b3ull + uint64_t(c)));
            const int64_t b = c * kChunk, e = std::min(n, b + kChunk);
            for (int64_t i = b; i < e; ++i) {
                state = splitmix64(state);
                f(i, state);
            }
        });
    }

    void done(uint64_t bytes) {
        done_ += bytes;
        if (total_) report(progress_, "making random weights", int64_t(std::min(done_, total_) >> 20), int64_t(total_ >> 20), "MiB");
    }

    std::vector<std::shared_ptr<const void>> storage;

private:
    uint64_t seed_, total_, done_ = 0, next_id_ = 0;
    LoadProgressFn progress_;
    ThreadPool pool_;
};

// Uniform in [-a, a) from 24 random bits.
inline float uniform(uint64_t r, float a) { return (float(r >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f) * a; }

constexpr float kStd = 0.02f;
const float kUniformHalfWidth = kStd * std::sqrt(3.0f);

const void* random_floats(Generator& g, DType dt, int64_t n, float half_width) {
    auto mem = allocate(size_t(n) * dtype_size(dt));
    void* p = mem.get();
    g.fill(n, [&](int64_t i, uint64_t r) {
        const float v = uniform(r, half_width);
        if (dt == DType::F32) static_cast<float*>(p)[i] = v;
        else if (dt == DType::F16) static_cast<uint16_t*>(p)[i] = f32_to_f16(v);
        else static_cast<uint16_t*>(p)[i] = f32_to_bf16(v);
    });
    g.storage.push_back(mem);
    g.done(uint64_t(n) * dtype_size(dt));
    return p;
}

FloatTensor ones(Generator& g, DType dt, int64_t n) {
    auto mem = allocate(size_t(n) * dtype_size(dt));
    for (int64_t i = 0; i < n; ++i) {
        if (dt == DType::F32) static_cast<float*>(mem.get())[i] = 1.0f;
        else if (dt == DType::F16) static_cast<uint16_t*>(mem.get())[i] = f32_to_f16(1.0f);
        else static_cast<uint16_t*>(mem.get())[i] = f32_to_bf16(1.0f);
    }
    g.storage.push_back(mem);
    return FloatTensor{dt, {n}, mem.get()};
}

Linear random_linear(Generator& g, const ModelConfig& c, int in, int out) {
    Linear l;
    l.in = in;
    l.out = out;
    if (c.quant.method != QuantConfig::Method::Awq) {
        l.kind = Linear::Kind::Dense;
        l.dense = DenseMatrix{c.torch_dtype, out, in, random_floats(g, c.torch_dtype, int64_t(out) * in, kUniformHalfWidth)};
        return l;
    }
    const int gs = c.quant.group_size, words = out / 8, groups = in / gs;
    auto qw = allocate(size_t(in) * words * 4);
    auto qz = allocate(size_t(groups) * words * 4);
    auto sc = allocate(size_t(groups) * out * 2);
    auto* qwp = static_cast<int32_t*>(qw.get());
    auto* qzp = static_cast<int32_t*>(qz.get());
    auto* scp = static_cast<uint16_t*>(sc.get());
    g.fill(int64_t(in) * words, [&](int64_t i, uint64_t r) { qwp[i] = int32_t(uint32_t(r >> 32)); });
    // Zero points 7..9 and scales around the uniform step that gives std 0.02 over 16 levels.
    g.fill(int64_t(groups) * words, [&](int64_t i, uint64_t r) {
        uint32_t packed = 0;
        for (int n = 0; n < 8; ++n) packed |= uint32_t(7 + (r >> (8 * n)) % 3) << (4 * n);
        qzp[i] = int32_t(packed);
    });
    const float step = kUniformHalfWidth / 7.5f;
    g.fill(int64_t(groups) * out, [&](int64_t i, uint64_t r) { scp[i] = f32_to_f16(step * (0.75f + 0.5f * float(r >> 40) / 16777216.0f)); });
    g.storage.push_back(qw);
    g.storage.push_back(qz);
    g.storage.push_back(sc);
    g.done(size_t(in) * words * 4 + size_t(groups) * words * 4 + size_t(groups) * out * 2);
    l.kind = Linear::Kind::Awq;
    l.awq = AwqMatrix{in, out, gs, qwp, qzp, scp};
    return l;
}

}  // namespace

std::vector<std::string> dummy_model_names() {
    std::vector<std::string> out;
    for (const auto& [name, s] : shapes()) out.push_back(name);
    return out;
}

ModelConfig dummy_config(const std::string& full) {
    std::string name = full;
    DType dtype = DType::F16;
    int awq_group = 0;
    const auto strip = [&](const std::string& suffix) {
        if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            name.resize(name.size() - suffix.size());
            return true;
        }
        return false;
    };
    if (strip("-awq-g32")) awq_group = 32;
    else if (strip("-awq-g64")) awq_group = 64;
    else if (strip("-awq")) awq_group = 128;
    else if (strip("-fp32")) dtype = DType::F32;
    else if (strip("-bf16")) dtype = DType::BF16;
    else strip("-fp16");
    const auto it = shapes().find(name);
    if (it == shapes().end()) {
        std::string known;
        for (const auto& n : dummy_model_names()) known += (known.empty() ? "" : ", ") + n;
        throw Error("unknown dummy model '" + full + "': known shapes are " + known +
                    ", optionally with -fp16, -bf16, -fp32, -awq, -awq-g64 or -awq-g32");
    }
    const Shape& s = it->second;
    ModelConfig c;
    c.architecture = find_architecture_by_model_type(s.type)->name;
    c.model_type = s.type;
    c.hidden_size = s.hidden;
    c.intermediate_size = s.intermediate;
    c.num_layers = s.layers;
    c.num_heads = s.heads;
    c.num_kv_heads = s.kv_heads;
    c.head_dim = s.head_dim ? s.head_dim : s.hidden / s.heads;
    if (s.llama3_rope) c.rope_scaling = RopeScaling{"llama3", 8.0f, 1.0f, 4.0f, 8192};
    c.vocab_size = s.vocab;
    c.max_position_embeddings = s.context;
    c.rms_norm_eps = s.rms_norm_eps;
    c.rope_theta = s.rope_theta;
    c.tie_word_embeddings = s.tied;
    c.bos_token_id = 1;
    c.eos_token_ids = {2};
    c.torch_dtype = dtype;
    if (awq_group) {
        c.quant.method = QuantConfig::Method::Awq;
        c.quant.group_size = awq_group;
    }
    return c;
}

ModelWeights dummy_weights(const ModelConfig& c, uint64_t seed, const LoadProgressFn& progress) {
    // Total bytes for progress: linears as stored plus fp16-sized embeddings.
    const DType dt = c.quant.method == QuantConfig::Method::Awq ? DType::F16 : c.torch_dtype;
    const uint64_t dense_linear = uint64_t(c.hidden_size) * (uint64_t(c.num_heads + 2 * c.num_kv_heads) * c.head_dim +
                                                             uint64_t(c.num_heads) * c.head_dim + 3ull * c.intermediate_size);
    const uint64_t per_layer = c.quant.method == QuantConfig::Method::Awq ? dense_linear / 2 : dense_linear * dtype_size(dt);
    const uint64_t total = per_layer * uint64_t(c.num_layers) + 2ull * c.vocab_size * c.hidden_size * dtype_size(dt);
    Generator g(seed, total, progress);

    ModelWeights w;
    const int h = c.hidden_size, hd = c.head_dim;
    const Architecture* arch = find_architecture(c.architecture);
    if (!arch) throw Error("dummy weights: unknown architecture \"" + c.architecture + "\"");
    w.embed_tokens = FloatTensor{dt, {c.vocab_size, h}, random_floats(g, dt, int64_t(c.vocab_size) * h, kUniformHalfWidth)};
    for (int i = 0; i < c.num_layers; ++i) {
        LayerWeights L;
        L.input_norm = ones(g, dt, h);
        L.post_attention_norm = ones(g, dt, h);
        L.q_proj = random_linear(g, c, h, c.num_heads * hd);
        L.k_proj = random_linear(g, c, h, c.num_kv_heads * hd);
        L.v_proj = random_linear(g, c, h, c.num_kv_heads * hd);
        L.o_proj = random_linear(g, c, c.num_heads * hd, h);
        L.gate_proj = random_linear(g, c, h, c.intermediate_size);
        L.up_proj = random_linear(g, c, h, c.intermediate_size);
        L.down_proj = random_linear(g, c, c.intermediate_size, h);
        if (arch->qkv_bias) {
            L.q_bias = FloatTensor{dt, {c.num_heads * hd}, random_floats(g, dt, c.num_heads * hd, kUniformHalfWidth)};
            L.k_bias = FloatTensor{dt, {c.num_kv_heads * hd}, random_floats(g, dt, c.num_kv_heads * hd, kUniformHalfWidth)};
            L.v_bias = FloatTensor{dt, {c.num_kv_heads * hd}, random_floats(g, dt, c.num_kv_heads * hd, kUniformHalfWidth)};
        }
        if (arch->head_norms) {
            L.q_norm = ones(g, dt, hd);
            L.k_norm = ones(g, dt, hd);
        }
        w.layers.push_back(std::move(L));
    }
    w.final_norm = ones(g, dt, h);
    w.lm_head.kind = Linear::Kind::Dense;
    w.lm_head.in = h;
    w.lm_head.out = c.vocab_size;
    if (c.tie_word_embeddings) {
        w.lm_head.dense = DenseMatrix{dt, c.vocab_size, h, w.embed_tokens.data};
    } else {
        w.lm_head.dense = DenseMatrix{dt, c.vocab_size, h, random_floats(g, dt, int64_t(c.vocab_size) * h, kUniformHalfWidth)};
    }
    for (auto& s : g.storage) w.storage.push_back(s);
    w.bytes_per_token = weight_bytes_per_token(w);
    report(progress, "making random weights", int64_t(total >> 20), int64_t(total >> 20), "MiB");
    return w;
}

}  // namespace folio
