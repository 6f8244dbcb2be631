#include "kernels/common/awq_pack.cuh"
#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/gemm.h"

namespace folio::cuda {

namespace {


// One thread per int32 word: its 8 columns of one row, written as one 16-byte store.
__global__ void __launch_bounds__(256) awq_dequant_kernel(AwqWeightsView w, __half* out) {
    const int words = w.n / 8;
    const int64_t total = int64_t(w.k) * words;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
        const int row = int(i / words), word = int(i % words);
        const int g = row / w.group_size;
        const uint32_t q = uint32_t(w.qweight[i]);
        const uint32_t z = uint32_t(w.qzeros[size_t(g) * words + word]);
        float s[8], v[8];
        load_half8(w.scales + size_t(g) * w.n + size_t(word) * 8, s);
        FOLIO_UNROLL
        for (int j = 0; j < 8; ++j) {
            const int c = awq_nibble_column(j);
            v[c] = float(int((q >> (4 * j)) & 15u) - int((z >> (4 * j)) & 15u)) * s[c];
        }
        store_half8(out + size_t(row) * w.n + size_t(word) * 8, v);
    }
}

}  // namespace

void awq_dequantize(const AwqWeightsView& w, __half* out, cudaStream_t stream) {
    const int64_t total = int64_t(w.k) * (w.n / 8);
    if (total <= 0) return;
    const int64_t blocks = (total + 255) / 256;
    launch(awq_dequant_kernel, dim3(unsigned(blocks < 8192 ? blocks : 8192)), dim3(256), 0, stream, w, out);
}

}  // namespace folio::cuda
