#include "kernels/linear_runner.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#if !defined(FOLIO_SIMT)
#include "kernels/cublas_gemm.h"
#endif

namespace folio::cuda {

#if defined(FOLIO_SIMT)
class CublasGemm {};  // never constructed: the SIMT build has no cuBLAS
#endif

LinearPolicy LinearPolicy::from_environment() {
    LinearPolicy p;
    if (const char* v = std::getenv("FOLIO_AWQ_DEQUANT_MIN_ROWS"); v && *v) p.awq_dequant_min_rows = std::atoi(v);
#if defined(FOLIO_SIMT)
    p.use_cublas = false;
    p.awq_dequant_min_rows = 0;
#endif
    return p;
}

namespace {

[[maybe_unused]] bool uses_cublas(const LinearPolicy& p) { return p.use_cublas || p.awq_dequant_min_rows > 0; }
[[maybe_unused]] bool dequantises(const LinearPolicy& p, int max_rows) {
    return p.awq_dequant_min_rows > 0 && max_rows >= p.awq_dequant_min_rows;
}

}  // namespace

LinearRunner::LinearRunner(const DeviceModel& model, int max_rows, int sm_count, LinearPolicy policy)
    : sm_count_(sm_count), policy_(policy) {
#if defined(FOLIO_SIMT)
    policy_.use_cublas = false;
    policy_.awq_dequant_min_rows = 0;
#endif
    std::vector<const DeviceLinear*> all{&model.lm_head};
    for (const DeviceLinear& l : model.linears) all.push_back(&l);
    // The largest split-K scratch any shape up to max_rows can ask for.
    size_t partials = 0;
    int counters = 0;
    for (const DeviceLinear* w : all) {
        counters = std::max(counters, split_k_counters(max_rows, w->out));
        const bool mma_path = w->kind == DeviceLinear::Kind::Awq || !policy_.use_cublas;
        if (w->kind == DeviceLinear::Kind::Awq)
            for (int m = 1; m <= std::min(max_rows, policy_.gemv_max_rows); ++m)
                partials = std::max(partials, split_k_partial_floats(m, w->out, awq_gemv_splits(w->in, w->out, w->group_size, sm_count)));
        if (mma_path)
            for (int m = 1; m <= max_rows; ++m) {
                const int splits = gemm_mma_splits(m, w->in, w->out, sm_count);
                if (splits == 1 && m > 64 * sm_count) break;  // larger m never splits
                partials = std::max(partials, split_k_partial_floats(m, w->out, splits));
            }
    }
    partials_ = DeviceBuffer<float>(std::max<size_t>(partials, 1), "split-K partial sums");
    counters_ = DeviceBuffer<int>(size_t(std::max(counters, 1)), "split-K counters");
    check(cudaMemset(counters_.get(), 0, counters_.bytes()), "cudaMemset");
#if !defined(FOLIO_SIMT)
    if (uses_cublas(policy_)) cublas_ = std::make_unique<CublasGemm>();
    if (dequantises(policy_, max_rows) && model.largest_awq_elems > 0)
        dequantized_ = DeviceBuffer<__half>(model.largest_awq_elems, "AWQ dequantisation workspace");
#endif
}

size_t LinearRunner::fixed_workspace_bytes(size_t largest_awq_elems, int max_rows, const LinearPolicy& policy) {
#if defined(FOLIO_SIMT)
    (void)largest_awq_elems, (void)max_rows, (void)policy;
    return 0;
#else
    return (uses_cublas(policy) ? CublasGemm::kWorkspaceBytes : 0) + (dequantises(policy, max_rows) ? largest_awq_elems * 2 : 0);
#endif
}

LinearRunner::~LinearRunner() = default;

size_t LinearRunner::workspace_bytes() const {
    size_t b = partials_.bytes() + counters_.bytes() + dequantized_.bytes();
#if !defined(FOLIO_SIMT)
    if (cublas_) b += cublas_->workspace_bytes();
#endif
    return b;
}

void LinearRunner::run(const DeviceLinear& w, const __half* x, int m, void* y, bool out_fp32, cudaStream_t stream) {
    if (m <= 0) return;
    const SplitKWorkspace ws{partials_.get(), partials_.size(), counters_.get(), int(counters_.size())};
    if (w.kind == DeviceLinear::Kind::Awq) {
        const AwqWeightsView v = w.awq_view();
        if (m <= policy_.gemv_max_rows) return awq_gemv(v, x, m, y, out_fp32, 0, sm_count_, ws, stream);
#if !defined(FOLIO_SIMT)
        if (policy_.awq_dequant_min_rows > 0 && m >= policy_.awq_dequant_min_rows && dequantized_.get()) {
            awq_dequantize(v, dequantized_.get(), stream);
            return cublas_->gemm(dequantized_.get(), true, x, m, w.in, w.out, y, out_fp32, stream);
        }
#endif
        return gemm_mma_awq(v, x, m, y, out_fp32, 0, sm_count_, ws, stream);
    }
#if !defined(FOLIO_SIMT)
    if (policy_.use_cublas) return cublas_->gemm(w.dense, false, x, m, w.in, w.out, y, out_fp32, stream);
#endif
    if (m <= policy_.gemv_max_rows) return dense_gemv(w.dense_view(), x, m, y, out_fp32, stream);
    gemm_mma_dense(w.dense_view(), x, m, y, out_fp32, 0, sm_count_, ws, stream);
}

}  // namespace folio::cuda
