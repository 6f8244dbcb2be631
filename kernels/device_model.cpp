#include "kernels/device_model.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "engine/model/model.h"
#include "engine/model/rope.h"
#include "kernels/attention.h"
#include "kernels/convert.h"

namespace folio::cuda {

namespace {

// Checkpoint bytes go up through one reusable device buffer and are converted to fp16 there.
class Uploader {
public:
    Uploader(cudaStream_t stream, size_t total_bytes, const LoadProgressFn& progress)
        : stream_(stream),
          total_(total_bytes ? total_bytes : 1),
          progress_(progress),
          staging_(kChunk, "weight upload staging"),
          overflow_(1, "weight upload staging") {}

    // `name` (the checkpoint tensor) is for the error when bf16/fp32 values do not fit in fp16.
    void to_half(const void* src, DType dtype, int64_t n, __half* dst, const std::string& name) {
        const size_t esize = dtype_size(dtype);
        const int64_t per_chunk = int64_t(kChunk / esize);
        if (dtype != DType::F16) check(cudaMemsetAsync(overflow_.get(), 0, sizeof(HalfOverflow), stream_), "weight upload");
        for (int64_t off = 0; off < n; off += per_chunk) {
            const int64_t cnt = std::min(per_chunk, n - off);
            const auto* s = static_cast<const unsigned char*>(src) + size_t(off) * esize;
            if (dtype == DType::F16) {
                check(cudaMemcpyAsync(dst + off, s, size_t(cnt) * 2, cudaMemcpyHostToDevice, stream_), "weight upload");
            } else {
                check(cudaMemcpyAsync(staging_.get(), s, size_t(cnt) * esize, cudaMemcpyHostToDevice, stream_), "weight upload");
                convert_to_half(staging_.get(), dtype, dst + off, cnt, stream_, overflow_.get());
            }
            // The staging buffer is reused by the next chunk: finish this one first.
            check(cudaStreamSynchronize(stream_), "weight upload");
            advance(size_t(cnt) * esize);
        }
        if (dtype == DType::F16) return;
        HalfOverflow o;
        check(cudaMemcpy(&o, overflow_.get(), sizeof(o), cudaMemcpyDeviceToHost), "weight upload");
        if (o.count == 0) return;
        float largest = 0;
        std::memcpy(&largest, &o.max_abs_bits, sizeof(largest));
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%.4g", double(largest));
        // Infinite weights would turn every activation they touch into inf/NaN: refuse, never clamp silently.
        throw Error("CUDA backend: " + name + " (" + std::string(dtype_name(dtype)) + ") holds " + std::to_string(o.count) +
                    " value(s) beyond fp16's range (largest magnitude " + buf +
                    ", fp16 ends at 65504); the CUDA backend keeps weights in fp16, where they would become "
                    "infinities. Use an fp16 or AWQ export of this model, or run it with --backend cpu (fp32)");
    }

    // Copies `rows` rows of `row_bytes` from a packed host matrix into columns of a wider device one.
    void columns(void* dst, size_t dst_pitch, const void* src, size_t row_bytes, size_t rows) {
        check(cudaMemcpy2D(dst, dst_pitch, src, row_bytes, row_bytes, rows, cudaMemcpyHostToDevice), "weight upload");
        advance(row_bytes * rows);
    }

    void bytes(void* dst, const void* src, size_t n) {
        check(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice), "weight upload");
        advance(n);
    }

private:
    static constexpr size_t kChunk = size_t(32) << 20;
    void advance(size_t n) {
        done_ += n;
        report(progress_, "uploading to GPU", int64_t(std::min(done_, total_) >> 20), int64_t(total_ >> 20), "MiB");
    }
    cudaStream_t stream_;
    size_t total_;
    size_t done_ = 0;
    LoadProgressFn progress_;
    DeviceBuffer<unsigned char> staging_;
    DeviceBuffer<HalfOverflow> overflow_;
};

size_t linear_bytes(const Linear& l) {
    if (l.kind == Linear::Kind::Awq)
        return size_t(l.in) * l.out / 2 + size_t(l.in / l.awq.group_size) * l.out * 5 / 2;
    return size_t(l.in) * l.out * dtype_size(l.dense.dtype);
}

std::string describe(const std::vector<const Linear*>& parts) {
    std::string s;
    for (const Linear* p : parts) s += (s.empty() ? "" : ", ") + std::string(p->kind == Linear::Kind::Awq ? "AWQ" : "dense");
    return s;
}

// One device matrix from several nn.Linear of the same input, outputs side by side; `names` are the
// parts' checkpoint names (for messages).
DeviceLinear upload_fused(const std::vector<const Linear*>& parts, const std::vector<std::string>& names, const char* name,
                          Uploader& up) {
    DeviceLinear d;
    d.kind = parts[0]->kind == Linear::Kind::Awq ? DeviceLinear::Kind::Awq : DeviceLinear::Kind::Dense;
    d.in = parts[0]->in;
    for (const Linear* p : parts) {
        if (p->kind != parts[0]->kind || p->in != d.in ||
            (p->kind == Linear::Kind::Awq && p->awq.group_size != parts[0]->awq.group_size))
            throw Error(std::string("CUDA backend: the parts of ") + name + " are stored differently (" + describe(parts) +
                        "); the CUDA backend needs them all AWQ with one group size or all dense");
        d.out += p->out;
    }
    if (d.kind == DeviceLinear::Kind::Dense) {
        d.weight = DeviceBuffer<__half>(size_t(d.out) * d.in, name);
        d.dense = d.weight.get();
        int row = 0;
        for (size_t i = 0; i < parts.size(); ++i) {
            const Linear* p = parts[i];
            up.to_half(p->dense.data, p->dense.dtype, int64_t(p->out) * p->in, d.weight.get() + size_t(row) * d.in, names[i] + ".weight");
            row += p->out;
        }
        return d;
    }
    d.group_size = parts[0]->awq.group_size;
    const size_t groups = size_t(d.in / d.group_size);
    d.qweight = DeviceBuffer<int32_t>(size_t(d.in) * d.out / 8, name);
    d.qzeros = DeviceBuffer<int32_t>(groups * d.out / 8, name);
    d.scales = DeviceBuffer<__half>(groups * d.out, name);
    int col = 0;
    for (const Linear* p : parts) {
        const AwqMatrix& m = p->awq;
        up.columns(d.qweight.get() + col / 8, size_t(d.out) / 8 * 4, m.qweight, size_t(p->out) / 8 * 4, size_t(d.in));
        up.columns(d.qzeros.get() + col / 8, size_t(d.out) / 8 * 4, m.qzeros, size_t(p->out) / 8 * 4, groups);
        up.columns(d.scales.get() + col, size_t(d.out) * 2, m.scales, size_t(p->out) * 2, groups);
        col += p->out;
    }
    return d;
}

DeviceBuffer<float> upload_norm(const FloatTensor& t, const char* name, Uploader& up) {
    std::vector<float> host(size_t(t.numel()));
    row_to_f32(t, 0, t.numel(), host.data());
    DeviceBuffer<float> d(host.size(), name);
    up.bytes(d.get(), host.data(), host.size() * sizeof(float));
    return d;
}

}  // namespace

void check_model_supported(const Model& model) {
    const ModelConfig& c = model.config;
    if (!attention_supports_head_dim(c.head_dim))
        throw Error("CUDA backend: head_dim " + std::to_string(c.head_dim) +
                    " is not supported (supported: 8, 16, 32, 64, 80, 96, 128, 256); use --backend cpu");
    if (c.num_kv_heads <= 0 || c.num_heads % c.num_kv_heads != 0)
        throw Error("CUDA backend: num_attention_heads must be a multiple of num_key_value_heads");
    auto check_linear = [](const Linear& l, const std::string& what) {
        if (l.kind != Linear::Kind::Awq) return;
        const int g = l.awq.group_size;
        if (g % 32 != 0 || g > 128 || l.in % g != 0 || l.out % 8 != 0)
            throw Error("CUDA backend: AWQ matrix " + what + " has group size " + std::to_string(g) + " and shape [" +
                        std::to_string(l.in) + ", " + std::to_string(l.out) +
                        "]; the kernels need a group size of 32, 64 or 128 dividing the input size");
    };
    for (size_t i = 0; i < model.weights.layers.size(); ++i) {
        const LayerWeights& L = model.weights.layers[i];
        const std::string p = "model.layers." + std::to_string(i) + ".";
        check_linear(L.q_proj, p + "self_attn.q_proj");
        check_linear(L.k_proj, p + "self_attn.k_proj");
        check_linear(L.v_proj, p + "self_attn.v_proj");
        check_linear(L.o_proj, p + "self_attn.o_proj");
        check_linear(L.gate_proj, p + "mlp.gate_proj");
        check_linear(L.up_proj, p + "mlp.up_proj");
        check_linear(L.down_proj, p + "mlp.down_proj");
    }
    check_linear(model.weights.lm_head, "lm_head");
}

size_t largest_fused_awq_elems(const Model& model) {
    size_t largest = 0;
    auto fused = [&](const std::vector<const Linear*>& parts) {
        size_t out = 0;
        for (const Linear* p : parts) {
            if (p->kind != Linear::Kind::Awq) return;
            out += size_t(p->out);
        }
        largest = std::max(largest, size_t(parts[0]->in) * out);
    };
    for (const LayerWeights& L : model.weights.layers) {
        fused({&L.q_proj, &L.k_proj, &L.v_proj});
        fused({&L.o_proj});
        fused({&L.gate_proj, &L.up_proj});
        fused({&L.down_proj});
    }
    fused({&model.weights.lm_head});
    return largest;
}

DeviceModel upload_model(const Model& model, cudaStream_t stream, const LoadProgressFn& progress) {
    check_model_supported(model);
    const ModelConfig& c = model.config;
    const ModelWeights& w = model.weights;
    const bool tied = w.lm_head.kind == Linear::Kind::Dense && w.lm_head.dense.data == w.embed_tokens.data;
    size_t total = size_t(w.embed_tokens.numel()) * dtype_size(w.embed_tokens.dtype);
    for (const auto& L : w.layers)
        for (const Linear* l : {&L.q_proj, &L.k_proj, &L.v_proj, &L.o_proj, &L.gate_proj, &L.up_proj, &L.down_proj})
            total += linear_bytes(*l);
    if (!tied) total += linear_bytes(w.lm_head);
    Uploader up(stream, total, progress);

    DeviceModel d;
    d.embed = DeviceBuffer<__half>(size_t(w.embed_tokens.numel()), "embed_tokens");
    up.to_half(w.embed_tokens.data, w.embed_tokens.dtype, w.embed_tokens.numel(), d.embed.get(), "model.embed_tokens.weight");
    for (size_t i = 0; i < w.layers.size(); ++i) {
        const LayerWeights& L = w.layers[i];
        const std::string p = "model.layers." + std::to_string(i) + ".";
        DeviceLayer dl;
        dl.input_norm = upload_norm(L.input_norm, "input_layernorm", up);
        dl.post_norm = upload_norm(L.post_attention_norm, "post_attention_layernorm", up);
        dl.qkv = upload_fused({&L.q_proj, &L.k_proj, &L.v_proj},
                              {p + "self_attn.q_proj", p + "self_attn.k_proj", p + "self_attn.v_proj"}, "q/k/v_proj", up);
        dl.o_proj = upload_fused({&L.o_proj}, {p + "self_attn.o_proj"}, "o_proj", up);
        dl.gate_up = upload_fused({&L.gate_proj, &L.up_proj}, {p + "mlp.gate_proj", p + "mlp.up_proj"}, "gate/up_proj", up);
        dl.down = upload_fused({&L.down_proj}, {p + "mlp.down_proj"}, "down_proj", up);
        d.layers.push_back(std::move(dl));
    }
    d.final_norm = upload_norm(w.final_norm, "norm", up);
    if (tied) {
        d.lm_head.kind = DeviceLinear::Kind::Dense;
        d.lm_head.in = c.hidden_size;
        d.lm_head.out = c.vocab_size;
        d.lm_head.dense = d.embed.get();
    } else {
        d.lm_head = upload_fused({&w.lm_head}, {"lm_head"}, "lm_head", up);
    }
    const std::vector<float> inv = rope_inv_freq(c);
    d.inv_freq = DeviceBuffer<float>(inv.size(), "rope inv_freq");
    up.bytes(d.inv_freq.get(), inv.data(), inv.size() * sizeof(float));

    d.bytes = d.embed.bytes() + d.final_norm.bytes() + d.lm_head.bytes() + d.inv_freq.bytes();
    for (const auto& l : d.layers)
        d.bytes += l.input_norm.bytes() + l.post_norm.bytes() + l.qkv.bytes() + l.o_proj.bytes() + l.gate_up.bytes() + l.down.bytes();
    d.largest_awq_elems = largest_fused_awq_elems(model);
    check(cudaStreamSynchronize(stream), "weight upload");
    return d;
}

}  // namespace folio::cuda
