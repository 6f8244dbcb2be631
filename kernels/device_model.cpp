#include "kernels/device_model.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "engine/model/architectures.h"
#include "engine/model/model.h"
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
    if (l.kind == Linear::Kind::Fp8) return size_t(l.in) * l.out + size_t(l.out) * 4;
    if (l.kind == Linear::Kind::Awq)
        return size_t(l.in) * l.out / 2 + size_t(l.in / l.awq.group_size) * l.out * 5 / 2;
    return size_t(l.in) * l.out * dtype_size(l.dense.dtype);
}

std::string describe(const std::vector<const Linear*>& parts) {
    std::string s;
    for (const Linear* p : parts)
        s += (s.empty() ? "" : ", ") + std::string(p->kind == Linear::Kind::Awq ? "AWQ" : p->kind == Linear::Kind::Fp8 ? "FP8" : "dense");
    return s;
}

// One device matrix from several nn.Linear of the same input, outputs side by side; `names` are the
// parts' checkpoint names (for messages).
DeviceLinear upload_fused(const std::vector<const Linear*>& parts, const std::vector<std::string>& names, const char* name,
                          Uploader& up) {
    DeviceLinear d;
    d.kind = parts[0]->kind == Linear::Kind::Awq   ? DeviceLinear::Kind::Awq
             : parts[0]->kind == Linear::Kind::Fp8 ? DeviceLinear::Kind::Fp8
                                                   : DeviceLinear::Kind::Dense;
    d.in = parts[0]->in;
    for (const Linear* p : parts) {
        if (p->kind != parts[0]->kind || p->in != d.in ||
            (p->kind == Linear::Kind::Awq && p->awq.group_size != parts[0]->awq.group_size) ||
            (p->kind == Linear::Kind::Fp8 && p->fp8.dtype != parts[0]->fp8.dtype))
            throw Error(std::string("CUDA backend: the parts of ") + name + " are stored differently (" + describe(parts) +
                        "); the CUDA backend needs them all AWQ with one group size, all FP8 of one format or all dense");
        d.out += p->out;
    }
    if (d.kind == DeviceLinear::Kind::Fp8) {
        // Rows one after another; each part's rows keep their own scales, so shards quantized with
        // different scales fuse exactly (no requantization to a common scale).
        d.e5m2 = parts[0]->fp8.dtype == DType::F8_E5M2;
        d.codes = DeviceBuffer<uint8_t>(size_t(d.out) * d.in, name);
        d.row_scales = DeviceBuffer<float>(size_t(d.out), name);
        int row = 0;
        for (const Linear* p : parts) {
            up.bytes(d.codes.get() + size_t(row) * d.in, p->fp8.data, size_t(p->out) * p->in);
            up.bytes(d.row_scales.get() + row, p->fp8.scales, size_t(p->out) * sizeof(float));
            d.input_scale = std::max(d.input_scale, p->fp8.input_scale);
            row += p->out;
        }
        return d;
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

DeviceBuffer<float> upload_norm(const FloatTensor& t, const std::string& name, Uploader& up) {
    std::vector<float> host(size_t(t.numel()));
    row_to_f32(t, 0, t.numel(), host.data());
    DeviceBuffer<float> d(host.size(), name.c_str());
    up.bytes(d.get(), host.data(), host.size() * sizeof(float));
    return d;
}

// Several fp32 vectors side by side in one device buffer; an absent tensor is `widths[i]` zeros.
DeviceBuffer<float> upload_concat(const ModelPlan& plan, const std::vector<TensorRef>& parts, const std::vector<int>& widths,
                                  const char* what, Uploader& up) {
    std::vector<float> host;
    for (size_t i = 0; i < parts.size(); ++i) {
        const size_t at = host.size();
        host.resize(at + size_t(widths[i]), 0.0f);
        if (!parts[i].present()) continue;
        const FloatTensor& t = plan.tensor(parts[i]);
        if (t.numel() != widths[i])
            throw Error("CUDA backend: " + plan.name(parts[i]) + " has " + std::to_string(t.numel()) + " values; expected " +
                        std::to_string(widths[i]));
        row_to_f32(t, 0, t.numel(), host.data() + at);
    }
    DeviceBuffer<float> d(host.size(), what);
    up.bytes(d.get(), host.data(), host.size() * sizeof(float));
    return d;
}

std::vector<const Linear*> parts_of(const ModelPlan& plan, const Launch& k) {
    std::vector<const Linear*> parts;
    for (LinearRef r : k.parts) parts.push_back(&plan.linear(r));
    return parts;
}

// in * out of the largest AWQ matrix the Linear launches (and lm_head) read.
size_t largest_awq(const ModelPlan& plan, const LaunchPlan& launches) {
    size_t largest = 0;
    auto fused = [&](const std::vector<const Linear*>& parts) {
        size_t out = 0;
        for (const Linear* p : parts) {
            if (p->kind != Linear::Kind::Awq) return;
            out += size_t(p->out);
        }
        largest = std::max(largest, size_t(parts[0]->in) * out);
    };
    for (const Launch& k : launches.launches)
        if (k.op == Launch::Op::Linear) fused(parts_of(plan, k));
    fused({&plan.linear(plan.lm_head)});
    return largest;
}

}  // namespace

size_t DeviceModel::rope_bytes() const {
    size_t b = 0;
    for (const auto& t : rope_tables) b += t.bytes();
    return b;
}

void check_model_supported(const Model& model) {
    const ModelConfig& c = model.config;
    if (!attention_supports_head_dim(c.head_dim))
        throw Error("CUDA backend: head_dim " + std::to_string(c.head_dim) +
                    " is not supported (supported: 8, 16, 32, 64, 80, 96, 128, 256); use --backend cpu");
    if (c.num_kv_heads <= 0 || c.num_heads % c.num_kv_heads != 0)
        throw Error("CUDA backend: num_attention_heads must be a multiple of num_key_value_heads");
    const ModelPlan plan = plan_model(model.config, model.weights);
    plan_launches(plan);  // refuses a step or option the kernels do not run
    for (const NamedLinear& nl : plan.linears) {
        const Linear& l = *nl.linear;
        if (l.kind != Linear::Kind::Awq) continue;
        const int g = l.awq.group_size;
        if (g % 32 != 0 || g > 128 || l.in % g != 0 || l.out % 8 != 0)
            throw Error("CUDA backend: AWQ matrix " + nl.name + " has group size " + std::to_string(g) + " and shape [" +
                        std::to_string(l.in) + ", " + std::to_string(l.out) +
                        "]; the kernels need a group size of 32, 64 or 128 dividing the input size");
    }
}

size_t largest_fused_awq_elems(const Model& model) {
    const ModelPlan plan = plan_model(model.config, model.weights);
    return largest_awq(plan, plan_launches(plan));
}

// The widest FP8 matrix input the Linear launches read (the W8A8 activation workspace).
int largest_fp8_in(const Model& model) {
    const ModelPlan plan = plan_model(model.config, model.weights);
    int in = 0;
    for (const NamedLinear& nl : plan.linears)
        if (nl.linear->kind == Linear::Kind::Fp8) in = std::max(in, nl.linear->in);
    return in;
}

DeviceModel upload_model(const Model& model, cudaStream_t stream, const LoadProgressFn& progress) {
    check_model_supported(model);
    const ModelConfig& c = model.config;
    const ModelPlan plan = plan_model(model.config, model.weights);
    DeviceModel d;
    d.plan = plan_launches(plan);
    const FloatTensor& embed = plan.tensor(plan.embed);
    size_t total = size_t(embed.numel()) * dtype_size(embed.dtype);
    for (const Launch& k : d.plan.launches)
        for (LinearRef r : k.parts) total += linear_bytes(plan.linear(r));
    if (!plan.tied_embeddings) total += linear_bytes(plan.linear(plan.lm_head));
    Uploader up(stream, total, progress);

    d.embed = DeviceBuffer<__half>(size_t(embed.numel()), "embed_tokens");
    up.to_half(embed.data, embed.dtype, embed.numel(), d.embed.get(), plan.name(plan.embed));
    for (const Launch& k : d.plan.launches) {
        if (k.op == Launch::Op::Norm) {
            d.norms.push_back(upload_norm(plan.tensor(k.norm), plan.name(k.norm), up));
        } else if (k.op == Launch::Op::Linear) {
            std::vector<std::string> names;
            std::string label;
            for (LinearRef r : k.parts) {
                names.push_back(plan.name(r));
                label += (label.empty() ? "" : " + ") + plan.name(r);
            }
            d.linears.push_back(upload_fused(parts_of(plan, k), names, label.c_str(), up));
        } else if (k.op == Launch::Op::QkvBias) {
            d.qkv_biases.push_back(upload_concat(plan, k.tensors, k.widths, "q/k/v biases", up));
        } else if (k.op == Launch::Op::HeadNorm) {
            d.head_norms.push_back(upload_concat(plan, k.tensors, {c.head_dim, c.head_dim}, "q/k head norms", up));
        }
    }
    d.final_norm = upload_norm(plan.tensor(plan.final_norm.weight), plan.name(plan.final_norm.weight), up);
    if (plan.tied_embeddings) {
        d.lm_head.kind = DeviceLinear::Kind::Dense;
        d.lm_head.in = c.hidden_size;
        d.lm_head.out = c.vocab_size;
        d.lm_head.dense = d.embed.get();
    } else {
        d.lm_head = upload_fused({&plan.linear(plan.lm_head)}, {plan.name(plan.lm_head)}, "lm_head", up);
    }
    for (const std::vector<float>& inv : plan.rope_tables) {
        d.rope_tables.emplace_back(inv.size(), "rope inv_freq");
        up.bytes(d.rope_tables.back().get(), inv.data(), inv.size() * sizeof(float));
    }

    d.bytes = d.embed.bytes() + d.final_norm.bytes() + d.lm_head.bytes() + d.rope_bytes();
    for (const auto& n : d.norms) d.bytes += n.bytes();
    for (const auto& b : d.qkv_biases) d.bytes += b.bytes();
    for (const auto& n : d.head_norms) d.bytes += n.bytes();
    for (const auto& l : d.linears) d.bytes += l.bytes();
    d.largest_awq_elems = largest_awq(plan, d.plan);
    const bool act_quant = c.quant.method == QuantConfig::Method::Fp8 && c.quant.fp8.activations != Fp8Config::Activations::WeightOnly;
    for (DeviceLinear& x : d.linears)
        if (x.kind == DeviceLinear::Kind::Fp8) {
            d.largest_fp8_in = std::max(d.largest_fp8_in, x.in);
            x.quantize_activations = act_quant;
        }
    check(cudaStreamSynchronize(stream), "weight upload");
    return d;
}

}  // namespace folio::cuda
