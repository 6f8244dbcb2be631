#pragma once
// Activations split into int8 parts per block for the integer AWQ kernels. A block of `block`
// inputs with d = max|x| / 127 is written as
//   x ~= d * (x0 + x1 / 128 + x2 / 128^2),   x0, x1, x2 in [-127, 127]
// with as many parts as asked: 1 part is plain int8 (error up to d/2), 3 parts leave an error of at
// most d/2^15 (about 1e-7 of the block's largest value, fp32-class). Integer dot products of the
// parts with the 4-bit weights are exact, so their order never matters; only the per-group fp32
// epilogue is ordered, and it is the same code for every batch size and instruction set.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace folio {
class ThreadPool;
}

namespace folio::cpu {

// Storage of the quantised activations, 64-byte aligned so that every row of an AMX A tile (64
// bytes) is one cache line: a plain vector's large allocations start 16 bytes into a page, which
// splits every row over two lines (measured: gate/up at m = 512, one thread, 1130 -> 805 ms; huge
// pages on top made no difference that the noise of this machine showed).
void* alloc_act_storage(size_t bytes);
void free_act_storage(void* p) noexcept;

template <class T>
struct ActAllocator {
    using value_type = T;
    ActAllocator() = default;
    template <class U>
    ActAllocator(const ActAllocator<U>&) {}
    T* allocate(size_t n) { return static_cast<T*>(alloc_act_storage(n * sizeof(T))); }
    void deallocate(T* p, size_t) noexcept { free_act_storage(p); }
    template <class U>
    bool operator==(const ActAllocator<U>&) const { return true; }
};

// Largest quantization block (the AWQ group size) the kernels take.
inline constexpr int kMaxQuantBlock = 1024;

struct QuantizedActs {
    int rows = 0, cols = 0, block = 0, parts = 0;
    int blocks_per_row = 0;
    // int8 values in tiles of 16 rows: [rows/16][blocks_per_row][parts][16][block], rows padded to a
    // multiple of 16 with zeros. One block of one part of 16 consecutive rows is contiguous, which
    // is an AMX A tile (stride `block`) that hardware prefetchers stream and that maps to distinct
    // cache sets.
    std::vector<int8_t, ActAllocator<int8_t>> q;
    const int8_t* block_part(int row, int b, int p) const {
        return q.data() + ((size_t(row / 16) * size_t(blocks_per_row) + size_t(b)) * size_t(parts) + size_t(p)) * 16 * size_t(block) +
               size_t(row % 16) * size_t(block);
    }
    // Element i of part p of a row.
    int8_t at(int row, int p, int i) const { return block_part(row, i / block, p)[i % block]; }
    // [rows][blocks_per_row]: d of each block, and Xc = X0 + (X1 + X2/128)/128 with Xp = sum of the
    // block's part p (the zero-point correction of the epilogue).
    std::vector<float> scale, sum;

};

// x: [rows, cols], cols a multiple of block. Deterministic, the same on every CPU and for every row
// whatever the others; rows are spread over `pool` when one is given.
void quantize_acts(const float* x, int rows, int cols, int block, int parts, QuantizedActs& out, ThreadPool* pool = nullptr);

// The fp32 value combined from the parts' integer sums, as the epilogue computes it (fma: one
// rounding per step):  parts 1: I0;  2: fma(I1, 1/128, I0);  3: fma(fma(I2, 1/128, I1), 1/128, I0)
inline float combine_parts(const int32_t* I, int parts) {
    constexpr float k = 1.0f / 128.0f;
    if (parts == 1) return float(I[0]);
    if (parts == 2) return std::fma(float(I[1]), k, float(I[0]));
    return std::fma(std::fma(float(I[2]), k, float(I[1])), k, float(I[0]));
}

}  // namespace folio::cpu
