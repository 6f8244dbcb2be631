#pragma once
// The int8 compute roof of the AVX-512 VNNI kernels: how many 512-bit VPDPBUSD this machine retires
// per second on all threads of a pool when nothing else limits them (12 independent accumulators).
// cpu_kernel_bench sets the AWQ matmuls against it, so a batch's time can be told apart as memory-,
// compute- or overhead-bound.
namespace folio {
class ThreadPool;
}

namespace folio::bench {

// Products per second over the pool; 0 when the CPU lacks AVX-512 VNNI.
double vnni_peak_per_second(ThreadPool& pool);

}  // namespace folio::bench
