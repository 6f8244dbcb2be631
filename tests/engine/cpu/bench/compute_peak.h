#pragma once
// The compute roofs of the CPU kernels: how many 512-bit instructions of a kind this machine retires
// per second on all threads of a pool when nothing else limits them (24 independent accumulators,
// in assembly). cpu_kernel_bench sets the matmuls against them, so a batch's time can be told apart
// as memory-, compute- or overhead-bound, and an instruction set's worth on this CPU is measured,
// not assumed (VDPBF16PS, for one, retires at very different rates on different cores).
namespace folio {
class ThreadPool;
}

namespace folio::bench {

enum class PeakOp {
    Vpdpbusd,    // AVX-512 VNNI: 64 int8 products (the AWQ kernels)
    Vdpbf16ps,   // AVX-512 BF16: 32 bf16 products accumulated in fp32
    Vfmadd231ps, // AVX-512F: 16 fp32 fused multiply-adds (the dense kernels)
};
const char* peak_op_name(PeakOp op);
// Products (multiply-adds) one instruction of `op` performs.
int peak_op_products(PeakOp op);

// Instructions per second over the pool; 0 when the CPU lacks the instruction.
double peak_per_second(PeakOp op, ThreadPool& pool);

}  // namespace folio::bench
