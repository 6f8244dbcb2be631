#pragma once
// Deterministic split-K fix-up: every block of a tile writes its partial sums, then counts itself in;
// the last one to arrive adds the partials in split order and writes the result.
#include "kernels/common/device_utils.cuh"

namespace folio::cuda {

// Returns true in every thread of the block that arrived last for `counter`, which it also resets.
__device__ __forceinline__ bool split_k_arrive_last(int* counter, int splits) {
    __shared__ int last;
    __threadfence();  // this block's partials are visible device-wide before it counts itself in
    __syncthreads();
    if (threadIdx.x == 0) {
        const int ticket = atomicAdd(counter, 1);
        last = ticket == splits - 1;
        if (last) *counter = 0;  // ready for the next launch (and graph replays)
    }
    __syncthreads();
    if (last) __threadfence();  // order the partial reads after the counter
    return last != 0;
}

}  // namespace folio::cuda
