#pragma once
// The backend's view of one nn.Linear: dense and FP8 matrices stay views into the checkpoint, AWQ
// matrices are repacked at load (awq_packed.h). Linears that read the same input (q/k/v, gate/up) run as one
// job on the pool, so a step pays one dispatch for them and both threads stream disjoint ranges.
#include <functional>
#include <initializer_list>
#include <vector>

#include "engine/cpu/act_quant.h"
#include "engine/cpu/awq_packed.h"
#include "engine/model/weights.h"

namespace folio {
class ThreadPool;
}

namespace folio::cpu {

struct PreparedLinear {
    Linear::Kind kind = Linear::Kind::Dense;
    int in = 0, out = 0;
    DenseMatrix dense;  // kind == Dense
    AwqPacked awq;      // kind == Awq
    Fp8Matrix fp8;      // kind == Fp8: a view, decoded inside the kernel (weight-only, W8A16)
    // Dense F16 (or BF16) weights that the CPU's 16-bit kernel takes (kernels.h, DenseHalfTable): the
    // largest |w|, which sets the fp16 kernel's activation scale in the int8 (fast) mode; negative when
    // that kernel is not used.
    float half_absmax = -1.0f;
};

PreparedLinear prepare_linear(const Linear& l);
// Bytes a step reads of this linear as prepared (packed AWQ or 8-bit, or the dense matrix).
uint64_t streamed_bytes(const PreparedLinear& p);
// All of a model's linears at once, given in the order a step runs them: AWQ matrices are packed
// into one WeightArena in that order, so that a step streams one range of huge pages. A dense linear
// whose entry in `q8_group` is positive is quantized to 8 bits per weight with that group size
// (pack_q8) and runs on the integer kernels; `q8_group` may be empty (none). `progress` (may be
// empty) hears (done, total) as each matrix is ready.
std::vector<PreparedLinear> prepare_linears(const std::vector<const Linear*>& in_step_order, const std::vector<int>& q8_group = {},
                                            const std::function<void(size_t done, size_t total)>& progress = {});

struct LinearOut {
    const PreparedLinear* w;
    float* y;  // [m, w->out]
};

// y = x . W^T for every target, all reading x [m, in]. AWQ targets use `acts` (re-quantized here
// from x with `act_parts` int8 parts; see act_quant.h); dense ones compute in fp32, except dense 16-bit
// weights in the int8 mode (act_parts == 1) where the CPU has AVX512-FP16 or AVX512-BF16 (kernels.h).
void run_linears(std::initializer_list<LinearOut> targets, const float* x, int m, int act_parts, QuantizedActs& acts,
                 ThreadPool& pool);

}  // namespace folio::cpu
