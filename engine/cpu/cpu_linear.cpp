#include "engine/cpu/cpu_linear.h"

#include <algorithm>

#include "engine/core/half.h"
#include "engine/core/thread_pool.h"
#include "engine/cpu/kernels.h"
#include "engine/cpu/weight_arena.h"

namespace folio::cpu {

namespace {
// The 16-bit kernel's precondition: the largest |w| of a dense matrix it takes (finite), or -1.
float half_absmax(const DenseMatrix& d) {
    const DenseHalfTable* fk = dense_half_kernels();
    if (!fk || !(d.dtype == DType::F16 || (d.dtype == DType::BF16 && fk->bf16_weights))) return -1.0f;
    const uint16_t mx = fk->absmax_bits(static_cast<const uint16_t*>(d.data), size_t(d.rows) * size_t(d.cols));
    const bool f16 = d.dtype == DType::F16;
    if (mx >= (f16 ? 0x7C00 : 0x7F80)) return -1.0f;  // inf or NaN weights: keep the fp32 path's semantics
    return f16 ? f16_to_f32(mx) : bf16_to_f32(mx);
}
}  // namespace

PreparedLinear prepare_linear(const Linear& l) {
    PreparedLinear p;
    p.kind = l.kind;
    p.in = l.in;
    p.out = l.out;
    if (l.kind == Linear::Kind::Dense) {
        p.dense = l.dense;
        p.half_absmax = half_absmax(l.dense);
    }
    else if (l.kind == Linear::Kind::Fp8) p.fp8 = l.fp8;
    else p.awq = pack_awq(l.awq);
    return p;
}

uint64_t streamed_bytes(const PreparedLinear& p) {
    if (p.kind == Linear::Kind::Awq) return uint64_t(p.awq.block_bytes) * uint64_t(p.awq.num_col_blocks);
    if (p.kind == Linear::Kind::Fp8) return uint64_t(p.fp8.rows) * (uint64_t(p.fp8.cols) + sizeof(float));  // codes + row scales
    return uint64_t(p.dense.rows) * uint64_t(p.dense.cols) * dtype_size(p.dense.dtype);
}

std::vector<PreparedLinear> prepare_linears(const std::vector<const Linear*>& in_step_order, const std::vector<int>& q8_group,
                                            const std::function<void(size_t done, size_t total)>& progress) {
    const auto q8 = [&](size_t i) { return i < q8_group.size() && in_step_order[i]->kind == Linear::Kind::Dense ? q8_group[i] : 0; };
    size_t bytes = 0;
    for (size_t i = 0; i < in_step_order.size(); ++i) {
        const Linear* l = in_step_order[i];
        if (l->kind == Linear::Kind::Awq) bytes += WeightArena::slice_bytes(awq_packed_bytes(l->awq));
        else if (q8(i) > 0) bytes += WeightArena::slice_bytes(q8_packed_bytes(l->dense, q8(i)));
    }
    std::vector<PreparedLinear> out;
    out.reserve(in_step_order.size());
    if (bytes == 0) {
        for (const Linear* l : in_step_order) {
            out.push_back(prepare_linear(*l));
            if (progress) progress(out.size(), in_step_order.size());
        }
        return out;
    }
    WeightArena arena(bytes);
    for (size_t i = 0; i < in_step_order.size(); ++i) {
        const Linear* l = in_step_order[i];
        PreparedLinear p;
        p.kind = l->kind;
        p.in = l->in;
        p.out = l->out;
        if (q8(i) > 0) {
            p.kind = Linear::Kind::Awq;  // runs on the integer kernels
            p.awq = pack_q8(l->dense, q8(i), arena);
        } else if (l->kind == Linear::Kind::Dense) {
            p.dense = l->dense;
            p.half_absmax = half_absmax(l->dense);
        } else if (l->kind == Linear::Kind::Fp8) {
            p.fp8 = l->fp8;
        } else {
            p.awq = pack_awq(l->awq, arena);
        }
        out.push_back(std::move(p));
        if (progress) progress(out.size(), in_step_order.size());
    }
    return out;
}

namespace {
struct Task {
    const LinearOut* target;
    int begin, end;  // column blocks (AWQ) or rows (dense)
};
}  // namespace

void run_linears(std::initializer_list<LinearOut> targets, const float* x, int m, int act_parts, QuantizedActs& acts,
                 ThreadPool& pool) {
    const KernelTable& k = kernels();
    bool quantized = false;
    // Dense 16-bit targets in the int8 mode: x to 16 bits once (fp16: scaled for the largest weight among them).
    const DenseHalfTable* const fk = act_parts == 1 ? dense_half_kernels() : nullptr;
    float half_absmax = -1.0f;
    if (fk)
        for (const auto& t : targets)
            if (t.w->kind == Linear::Kind::Dense) half_absmax = std::max(half_absmax, t.w->half_absmax);
    const bool use_half = half_absmax >= 0.0f;
    const int in = targets.begin()->w->in;
    const int ldh = (in + 31) & ~31;
    uint16_t* xh = nullptr;
    float* unscale = nullptr;
    if (use_half) {
        xh = static_cast<uint16_t*>(kernel_scratch(ScratchSlot::HalfActs, sizeof(uint16_t) * size_t(m) * size_t(ldh)));
        unscale = static_cast<float*>(kernel_scratch(ScratchSlot::HalfUnscale, sizeof(float) * size_t(m)));
        constexpr int kRowsPerTask = 16;
        pool.run((m + kRowsPerTask - 1) / kRowsPerTask, [&](int64_t i) {
            const int t0 = int(i) * kRowsPerTask;
            fk->acts_to_half(x, t0, std::min(m, t0 + kRowsPerTask), in, half_absmax, xh, ldh, unscale);
        });
    }
    // Work units: 16-column blocks for AWQ, rows for dense and FP8. Chunks of about a quarter of a thread's
    // share keep both threads busy to the end while each chunk streams one contiguous weight range.
    int64_t units = 0;
    for (const auto& t : targets) units += t.w->kind == Linear::Kind::Awq ? t.w->awq.num_col_blocks : t.w->out;
    const int64_t per_chunk = std::max<int64_t>(1, units / (int64_t(pool.size()) * 4));
    std::vector<Task> tasks;
    for (const auto& t : targets) {
        if (t.w->kind == Linear::Kind::Awq && !quantized) {
            quantize_acts(x, m, t.w->in, t.w->awq.group_size, act_parts, acts, &pool);
            quantized = true;
        }
        const int n = t.w->kind == Linear::Kind::Awq ? t.w->awq.num_col_blocks : t.w->out;
        const int step = int(std::max<int64_t>(t.w->kind == Linear::Kind::Awq ? 1 : 4, per_chunk));
        for (int b = 0; b < n; b += step) tasks.push_back({&t, b, std::min(n, b + step)});
    }
    pool.run(int64_t(tasks.size()), [&](int64_t i) {
        const Task& task = tasks[size_t(i)];
        const PreparedLinear& w = *task.target->w;
        if (w.kind == Linear::Kind::Awq) {
            k.awq_int(w.awq, task.begin, task.end, acts, m, task.target->y, w.out);
        } else if (w.kind == Linear::Kind::Fp8) {
            k.fp8_rows(w.fp8, task.begin, task.end, x, m, task.target->y);
        } else if (use_half && w.half_absmax >= 0.0f) {
            fk->dense_rows(w.dense, task.begin, task.end, xh, ldh, unscale, m, task.target->y);
        } else {
            k.dense_rows(w.dense, task.begin, task.end, x, m, task.target->y);
        }
    });
}

}  // namespace folio::cpu
