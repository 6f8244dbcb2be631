#include "kernels/linear_runner.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/cublas_gemm.h"

namespace folio::cuda {

namespace {

// A whole non-negative number, or a folio::Error naming the variable.
int env_count(const char* name, int fallback, int most) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    char* end = nullptr;
    errno = 0;
    const long x = std::strtol(v, &end, 10);
    if (*end != '\0' || errno != 0 || x < 0 || x > most)
        throw Error(std::string(name) + " must be a whole number from 0 to " + std::to_string(most) + ", not \"" + v + "\"");
    return int(x);
}

bool dequantises(const LinearPolicy& p, int max_rows, size_t largest_awq_elems) {
    return largest_awq_elems > 0 && p.awq_dequant_min_rows > 0 && max_rows >= p.awq_dequant_min_rows;
}
bool uses_cublas(const LinearPolicy& p, int max_rows, size_t largest_awq_elems) {
    return p.use_cublas || dequantises(p, max_rows, largest_awq_elems);
}

// Whether a product runs as W8A8 (the rest of FP8 is weight-only).
bool w8a8(const DeviceLinear& w, const LinearPolicy& p) {
    return p.fp8_w8a8 && w.quantize_activations && !w.e5m2 && w.in % 16 == 0;
}

}  // namespace

LinearPolicy LinearPolicy::from_environment() {
    LinearPolicy p;
    p.awq_dequant_min_rows = env_count("FOLIO_AWQ_DEQUANT_MIN_ROWS", p.awq_dequant_min_rows, 1 << 30);
    p.use_cublas = env_count("FOLIO_CUDA_CUBLAS", p.use_cublas ? 1 : 0, 1) == 1;
    // W8A8 is the backend's choice by compute capability; this can only turn it off.
    p.fp8_w8a8 = env_count("FOLIO_FP8_W8A8", 1, 1) == 1;
    return p;
}

LinearRunner::LinearRunner(const DeviceModel& model, int max_rows, int sm_count, LinearPolicy policy)
    : sm_count_(sm_count), policy_(policy) {
    std::vector<const DeviceLinear*> all{&model.lm_head};
    for (const DeviceLinear& l : model.linears) all.push_back(&l);
    // The largest split-K scratch any shape up to max_rows can ask for.
    size_t partials = 0;
    int counters = 0;
    for (const DeviceLinear* w : all) {
        counters = std::max(counters, split_k_counters(max_rows, w->out));
        const bool mma_path = w->kind == DeviceLinear::Kind::Awq || w->kind == DeviceLinear::Kind::Fp8 || !policy_.use_cublas;
        const bool fp8_mma = w->kind == DeviceLinear::Kind::Fp8 && w8a8(*w, policy_);
        if (w->kind == DeviceLinear::Kind::Awq)
            for (int m = 1; m <= std::min(max_rows, policy_.gemv_max_rows); ++m)
                partials = std::max(partials, split_k_partial_floats(m, w->out, awq_gemv_splits(w->in, w->out, w->group_size, sm_count)));
        if (mma_path)
            for (int m = 1; m <= max_rows; ++m) {
                const int splits = fp8_mma ? gemm_fp8_mma_splits(m, w->in, w->out, sm_count) : gemm_mma_splits(m, w->in, w->out, sm_count);
                if (splits == 1 && m > 64 * sm_count) break;  // larger m never splits
                partials = std::max(partials, split_k_partial_floats(m, w->out, splits));
            }
    }
    partials_ = DeviceBuffer<float>(std::max<size_t>(partials, 1), "split-K partial sums");
    counters_ = DeviceBuffer<int>(size_t(std::max(counters, 1)), "split-K counters");
    if (policy_.fp8_w8a8 && model.largest_fp8_in > 0) {
        act_codes_ = DeviceBuffer<uint8_t>(size_t(max_rows) * size_t(model.largest_fp8_in), "FP8 activations");
        act_scales_ = DeviceBuffer<float>(size_t(max_rows), "FP8 activation scales");
    }
    check(cudaMemset(counters_.get(), 0, counters_.bytes()), "cudaMemset");
    if (uses_cublas(policy_, max_rows, model.largest_awq_elems)) cublas_ = std::make_unique<CublasGemm>();
    if (dequantises(policy_, max_rows, model.largest_awq_elems))
        dequantized_ = DeviceBuffer<__half>(model.largest_awq_elems, "AWQ dequantisation workspace");
}

size_t LinearRunner::fixed_workspace_bytes(size_t largest_awq_elems, int max_rows, const LinearPolicy& policy, int largest_fp8_in) {
    const size_t fp8 = policy.fp8_w8a8 && largest_fp8_in > 0 ? size_t(max_rows) * (size_t(largest_fp8_in) + sizeof(float)) : 0;
    return fp8 + (uses_cublas(policy, max_rows, largest_awq_elems) ? CublasGemm::kWorkspaceBytes : 0) +
           (dequantises(policy, max_rows, largest_awq_elems) ? largest_awq_elems * 2 : 0);
}

LinearRunner::~LinearRunner() = default;

size_t LinearRunner::workspace_bytes() const {
    size_t b = partials_.bytes() + counters_.bytes() + dequantized_.bytes() + act_codes_.bytes() + act_scales_.bytes();
    if (cublas_) b += cublas_->workspace_bytes();
    return b;
}

void LinearRunner::run(const DeviceLinear& w, const __half* x, int m, void* y, bool out_fp32, cudaStream_t stream) {
    if (m <= 0) return;
    const SplitKWorkspace ws{partials_.get(), partials_.size(), counters_.get(), int(counters_.size())};
    if (w.kind == DeviceLinear::Kind::Fp8) {
        const Fp8WeightsView v = w.fp8_view();
        if (m <= policy_.gemv_max_rows) {
            counts_.fp8_gemv++;
            return fp8_gemv(v, x, m, y, out_fp32, stream);
        }
        if (w8a8(w, policy_) && act_codes_.get()) {
            counts_.fp8_w8a8_mma++;
            quantize_rows_fp8(x, m, w.in, w.input_scale, act_codes_.get(), act_scales_.get(), stream);
            return gemm_fp8_mma(v, act_codes_.get(), act_scales_.get(), m, y, out_fp32, 0, sm_count_, ws, stream);
        }
        counts_.fp8_w8a16_mma++;
        return gemm_mma_fp8w(v, x, m, y, out_fp32, 0, sm_count_, ws, stream);
    }
    if (w.kind == DeviceLinear::Kind::Awq) {
        const AwqWeightsView v = w.awq_view();
        if (m <= policy_.gemv_max_rows) {
            counts_.awq_gemv++;
            return awq_gemv(v, x, m, y, out_fp32, 0, sm_count_, ws, stream);
        }
        if (policy_.awq_dequant_min_rows > 0 && m >= policy_.awq_dequant_min_rows && dequantized_.get()) {
            counts_.awq_dequant_cublas++;
            awq_dequantize(v, dequantized_.get(), stream);
            return cublas_->gemm(dequantized_.get(), true, x, m, w.in, w.out, y, out_fp32, stream);
        }
        counts_.awq_mma++;
        return gemm_mma_awq(v, x, m, y, out_fp32, 0, sm_count_, ws, stream);
    }
    if (policy_.use_cublas) {
        counts_.dense_cublas++;
        return cublas_->gemm(w.dense, false, x, m, w.in, w.out, y, out_fp32, stream);
    }
    if (m <= policy_.gemv_max_rows) {
        counts_.dense_gemv++;
        return dense_gemv(w.dense_view(), x, m, y, out_fp32, stream);
    }
    counts_.dense_mma++;
    gemm_mma_dense(w.dense_view(), x, m, y, out_fp32, 0, sm_count_, ws, stream);
}

}  // namespace folio::cuda
