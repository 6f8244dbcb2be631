#include "engine/model/fp8_quantize.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <vector>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/core/error.h"
#include "engine/core/fp8.h"
#include "engine/core/half.h"
#include "engine/core/thread_pool.h"
#include "engine/model/model.h"
#include "engine/model/weights_loader.h"

namespace folio {

namespace {

// Row r of a dense matrix as fp32 (fp16 through a table: the bit-by-bit conversion dominates otherwise).
void row_f32(const DenseMatrix& m, size_t r, const std::vector<float>& f16_table, float* out) {
    const size_t n = size_t(m.cols), off = r * n;
    if (m.dtype == DType::F32) {
        std::copy_n(static_cast<const float*>(m.data) + off, n, out);
    } else if (m.dtype == DType::F16) {
        const uint16_t* s = static_cast<const uint16_t*>(m.data) + off;
        for (size_t i = 0; i < n; ++i) out[i] = f16_table[s[i]];
    } else {
        const uint16_t* s = static_cast<const uint16_t*>(m.data) + off;
        for (size_t i = 0; i < n; ++i) out[i] = bf16_to_f32(s[i]);
    }
}

// The source bytes of a converted matrix are no longer needed: an owned buffer (dummy models) is freed
// by dropping its storage entry; checkpoint bytes live in a read-only file mapping, whose pages
// madvise(MADV_DONTNEED) drops from memory (they would be read from the file again if touched).
void release(ModelWeights& w, const void* data, size_t bytes) {
    for (auto it = w.storage.begin(); it != w.storage.end(); ++it)
        if (it->get() == data) {
            w.storage.erase(it);
            return;
        }
    const uintptr_t page = uintptr_t(sysconf(_SC_PAGE_SIZE));
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

Linear quantize(const Linear& l, const std::string& name, ThreadPool& pool, const std::vector<float>& f16_table, ModelWeights& w) {
    const DenseMatrix& d = l.dense;
    const size_t rows = size_t(d.rows), cols = size_t(d.cols);
    auto codes = std::shared_ptr<uint8_t[]>(new uint8_t[rows * cols]);
    auto scales = std::shared_ptr<float[]>(new float[rows]);
    std::atomic<int64_t> bad_row{-1};
    pool.parallel_for(int64_t(rows), 16, [&](int64_t b, int64_t e) {
        std::vector<float> row(cols);
        for (int64_t r = b; r < e; ++r) {
            row_f32(d, size_t(r), f16_table, row.data());
            float amax = 0.0f;
            bool finite = true;
            for (size_t i = 0; i < cols; ++i) {
                finite = finite && std::isfinite(row[i]);
                amax = std::max(amax, std::fabs(row[i]));
            }
            if (!finite) {
                int64_t expected = -1;
                bad_row.compare_exchange_strong(expected, r);
                continue;
            }
            const float scale = amax / kFp8E4m3Max;
            scales[size_t(r)] = scale;
            uint8_t* q = codes.get() + size_t(r) * cols;
            for (size_t i = 0; i < cols; ++i) q[i] = scale > 0.0f ? f32_to_fp8_e4m3(row[i] / scale) : 0;
        }
    });
    if (bad_row >= 0)
        throw Error("--quantization fp8: " + name + ".weight holds NaN or infinite values (row " + std::to_string(bad_row.load()) +
                    "), which FP8 cannot represent; the checkpoint is damaged");
    Linear q;
    q.kind = Linear::Kind::Fp8;
    q.in = l.in;
    q.out = l.out;
    q.fp8 = Fp8Matrix{DType::F8_E4M3, d.rows, d.cols, codes.get(), scales.get(), 0.0f};
    w.storage.push_back(std::shared_ptr<const void>(codes, codes.get()));
    w.storage.push_back(std::shared_ptr<const void>(scales, scales.get()));
    release(w, d.data, rows * cols * dtype_size(d.dtype));
    return q;
}

}  // namespace

bool parse_load_quantization(const std::string& value) {
    if (value.empty() || value == "none") return false;
    if (value == "fp8") return true;
    throw Error("unknown --quantization '" + value + "': use fp8 (FP8 E4M3 weights, converted at load) or none");
}

Fp8QuantizeStats quantize_fp8_at_load(Model& model) {
    const auto t0 = std::chrono::steady_clock::now();
    QuantConfig& q = model.config.quant;
    if (q.method == QuantConfig::Method::Awq)
        throw Error("--quantization fp8: " + model.name + " is already quantized (" +
                    (q.pack_quantized ? "compressed-tensors int4" : "AutoAWQ 4-bit") +
                    "); FP8 at load converts fp16, bf16 or fp32 checkpoints");
    if (q.method == QuantConfig::Method::Fp8)
        throw Error("--quantization fp8: " + model.name + " is already an FP8 checkpoint; it runs as FP8 without the option");
    Fp8QuantizeStats stats;
    ThreadPool pool(0);
    std::vector<float> f16_table(65536);
    for (uint32_t h = 0; h < 65536; ++h) f16_table[h] = f16_to_f32(uint16_t(h));
    ModelWeights& w = model.weights;
    for (size_t i = 0; i < w.layers.size(); ++i) {
        LayerWeights& L = w.layers[i];
        const std::string p = "model.layers." + std::to_string(i) + ".";
        for (auto [lin, name] : {std::pair{&L.q_proj, "self_attn.q_proj"}, {&L.k_proj, "self_attn.k_proj"}, {&L.v_proj, "self_attn.v_proj"},
                                 {&L.o_proj, "self_attn.o_proj"}, {&L.gate_proj, "mlp.gate_proj"}, {&L.up_proj, "mlp.up_proj"},
                                 {&L.down_proj, "mlp.down_proj"}}) {
            if (lin->kind != Linear::Kind::Dense) throw Error("--quantization fp8: " + p + name + " is not a dense matrix");
            stats.bytes_before += linear_bytes(*lin);
            *lin = quantize(*lin, p + name, pool, f16_table, w);
            stats.bytes_after += linear_bytes(*lin);
            ++stats.matrices;
        }
    }
    q = QuantConfig{};
    q.method = QuantConfig::Method::Fp8;
    q.fp8.source = Fp8Config::Source::AtLoad;
    q.fp8.weight_scales = Fp8Config::WeightScales::PerChannel;
    q.fp8.activations = Fp8Config::Activations::DynamicPerToken;
    w.bytes_per_token = weight_bytes_per_token(w);
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return stats;
}

}  // namespace folio
