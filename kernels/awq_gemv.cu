// AWQ int4 GEMV for decode batches. Block = 8 warps over 32 consecutive int32 columns (256 outputs);
// lane c reads qweight[k][c] (coalesced 128-byte rows), dequantises its 8 nibbles once and
// multiplies them by every one of the m <= 8 activation rows, so each weight byte is read once per
// call. The k range is split over grid.y (whole groups per split) so that even a 4096-wide matrix
// fills the GPU; the splits meet in the deterministic split-K fix-up. The group size is a template
// parameter so the row loop unrolls and each lane has a group's worth of loads in flight at once
// (memory-level parallelism is what a GEMV lives on).
//
// Instructions per nibble are what bound it, not memory: on an H200 (ncu, Llama-2-7B AWQ g128, one
// decode row) the kernel that dequantised every nibble in fp32 (shift, mask, zero subtraction,
// int-to-float conversion, scale multiply, then the FMA) ran at 0.8-1.0 TB/s of the ~4.2 TB/s the
// device copies (qkv 32.2 us, gate_up 43.9 us per layer, 3.9 ms of a 6.0 ms step): at that rate an
// SM has only a few instruction slots per arriving nibble, and each nibble took six, one of them a
// quarter-rate conversion. Now a nibble takes one LOP3 and one FADD to become a float
// (nibble_scaled) and one FMA per row; the zero point and the scale are applied once per group and
// column, s * (sum_k x q - z * sum_k x), still accumulated in fp32.
#include "kernels/common/awq_pack.cuh"
#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/split_k.cuh"
#include "kernels/gemm.h"

namespace folio::cuda {

namespace {

constexpr int kWarps = 8;
constexpr int kColsPerBlock = 32 * 8;  // outputs
constexpr int kMaxGroup = 128;

// Nibble i (0..3) of `word` times 16^i, as a float, exactly: the nibble is masked in place into the
// mantissa of 2^23 (0x4B000000; bits 4i..4i+3 stay below bit 23), and 2^23 is subtracted. Two
// full-rate instructions (LOP3, FADD) instead of shift, mask and an int-to-float conversion (a
// quarter-rate instruction on sm_89/sm_90). Scaling every term of a column's sum by the same power
// of two changes no rounding, so the 16^i is taken out once per group, exactly, as well.
__device__ __forceinline__ float nibble_scaled(uint32_t word, int i) {
    return __uint_as_float((word & (0xFu << (4 * i))) | 0x4B000000u) - 8388608.0f;
}

template <int MR, int GS, class Out>
__global__ void __launch_bounds__(kWarps * 32) awq_gemv_kernel(AwqWeightsView w, const __half* x, int m, Out* y,
                                                               int groups_per_split, SplitKWorkspace ws) {
    __shared__ float xs[MR][GS];
    __shared__ float red[kWarps][kColsPerBlock];
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    const int words = w.n / 8;
    const int col = int(blockIdx.x) * 32 + lane;  // int32 column
    const bool valid = col < words;
    constexpr int gs = GS;
    const int num_groups = w.k / gs;
    const int g0 = int(blockIdx.y) * groups_per_split;
    const int g1 = min(g0 + groups_per_split, num_groups);

    float acc[MR][8];
    FOLIO_UNROLL
    for (int r = 0; r < MR; ++r)
        FOLIO_UNROLL
        for (int e = 0; e < 8; ++e) acc[r][e] = 0.0f;

    for (int g = g0; g < g1; ++g) {
        // The group's weights are loaded before x is staged, so that their DRAM round trip overlaps
        // the staging's (x: L2) round trip and its barriers instead of following them.
        uint32_t zw = 0u;
        float s[8] = {};
        uint32_t qs[gs / kWarps] = {};  // this lane's words of the group, all loads issued up front
        if (valid) {
            zw = uint32_t(w.qzeros[size_t(g) * words + col]);
            load_half8(w.scales + size_t(g) * w.n + size_t(col) * 8, s);
            const int32_t* qrow = w.qweight + (size_t(g) * gs) * words + col;
            FOLIO_UNROLL
            for (int j = 0; j < gs / kWarps; ++j) qs[j] = uint32_t(qrow[size_t(warp + j * kWarps) * words]);
        }
        __syncthreads();
        for (int i = int(threadIdx.x); i < MR * gs; i += kWarps * 32) {
            const int r = i / gs, kk = i % gs;
            xs[r][kk] = r < m ? __half2float(x[size_t(r) * w.k + size_t(g) * gs + kk]) : 0.0f;
        }
        __syncthreads();
        if (!valid) continue;
        // The group's products without scale or zero: p[r][c] = sum_k x[r][k] * q[k][c] * 16^(i % 4)
        // (nibble i holds column c, nibble_scaled) and sx[r] = sum_k x[r][k], over this warp's rows.
        float p[MR][8], sx[MR];
        FOLIO_UNROLL
        for (int r = 0; r < MR; ++r) {
            sx[r] = 0.0f;
            FOLIO_UNROLL
            for (int e = 0; e < 8; ++e) p[r][e] = 0.0f;
        }
        FOLIO_UNROLL
        for (int j = 0; j < gs / kWarps; ++j) {
            const int kk = warp + j * kWarps;
            const uint32_t lo = qs[j], hi = qs[j] >> 16;
            float f[8];
            FOLIO_UNROLL
            for (int i = 0; i < 4; ++i) {
                f[i] = nibble_scaled(lo, i);
                f[i + 4] = nibble_scaled(hi, i);
            }
            FOLIO_UNROLL
            for (int r = 0; r < MR; ++r) {
                const float xv = xs[r][kk];
                sx[r] += xv;
                FOLIO_UNROLL
                for (int i = 0; i < 8; ++i) p[r][awq_nibble_column(i)] += xv * f[i];
            }
        }
        // Scale and zero once per group and column: sum_k x (q - z) s = s (sum_k x q - z sum_k x).
        FOLIO_UNROLL
        for (int i = 0; i < 8; ++i) {
            const int c = awq_nibble_column(i);
            const float unscale = 1.0f / float(1 << (4 * (i % 4)));  // exact: a power of two
            const float z = float((zw >> (4 * i)) & 15u);
            FOLIO_UNROLL
            for (int r = 0; r < MR; ++r) acc[r][c] += s[c] * (p[r][c] * unscale - z * sx[r]);
        }
    }

    // Sum the 8 warps' partials: one row at a time through shared memory.
    const int n_out = int(blockIdx.x) * kColsPerBlock + int(threadIdx.x);
    float result[MR];
    FOLIO_UNROLL
    for (int r = 0; r < MR; ++r) {
        __syncthreads();
        FOLIO_UNROLL
        for (int e = 0; e < 8; ++e) red[warp][lane * 8 + e] = acc[r][e];
        __syncthreads();
        float v = 0.0f;
        FOLIO_UNROLL
        for (int j = 0; j < kWarps; ++j) v += red[j][threadIdx.x];
        result[r] = v;
    }
    const int splits = int(gridDim.y);
    if (splits == 1) {
        if (n_out < w.n)
            FOLIO_UNROLL
            for (int r = 0; r < MR; ++r)
                if (r < m) store_as(y + size_t(r) * w.n + n_out, result[r]);
        return;
    }
    float* part = ws.partials;
    if (n_out < w.n)
        FOLIO_UNROLL
        for (int r = 0; r < MR; ++r)
            if (r < m) part[(size_t(blockIdx.y) * m + r) * w.n + n_out] = result[r];
    if (!split_k_arrive_last(ws.counters + blockIdx.x, splits)) return;
    if (n_out < w.n)
        for (int r = 0; r < m; ++r) {
            float v = 0.0f;
            for (int sp = 0; sp < splits; ++sp) v += __ldcg(part + (size_t(sp) * m + r) * w.n + n_out);
            store_as(y + size_t(r) * w.n + n_out, v);
        }
}

template <int MR, int GS>
void launch_gemv(const AwqWeightsView& w, const __half* x, int m, void* y, bool out_fp32, int splits,
                 const SplitKWorkspace& ws, cudaStream_t stream) {
    const int num_groups = w.k / w.group_size;
    const int per_split = (num_groups + splits - 1) / splits;
    splits = (num_groups + per_split - 1) / per_split;  // no empty splits
    const dim3 grid(unsigned((w.n / 8 + 31) / 32), unsigned(splits));
    if (out_fp32)
        launch(awq_gemv_kernel<MR, GS, float>, grid, dim3(kWarps * 32), 0, stream, w, x, m, static_cast<float*>(y), per_split, ws);
    else
        launch(awq_gemv_kernel<MR, GS, __half>, grid, dim3(kWarps * 32), 0, stream, w, x, m, static_cast<__half*>(y),
               per_split, ws);
}

template <int MR>
void launch_gemv(const AwqWeightsView& w, const __half* x, int m, void* y, bool out_fp32, int splits,
                 const SplitKWorkspace& ws, cudaStream_t stream) {
    switch (w.group_size) {
        case 32: return launch_gemv<MR, 32>(w, x, m, y, out_fp32, splits, ws, stream);
        case 64: return launch_gemv<MR, 64>(w, x, m, y, out_fp32, splits, ws, stream);
        case 128: return launch_gemv<MR, 128>(w, x, m, y, out_fp32, splits, ws, stream);
    }
    throw Error("awq_gemv: group size " + std::to_string(w.group_size) + " (supported: 32, 64, 128)");
}

}  // namespace

int awq_gemv_splits(int k, int n, int group_size, int sm_count) {
    const int col_blocks = (n / 8 + 31) / 32;
    const int num_groups = k / group_size;
    int splits = (2 * sm_count + col_blocks - 1) / col_blocks;
    splits = splits < 1 ? 1 : (splits > num_groups ? num_groups : splits);
    return splits;
}

void awq_gemv(const AwqWeightsView& w, const __half* x, int m, void* y, bool out_fp32, int splits, int sm_count,
              const SplitKWorkspace& ws, cudaStream_t stream) {
    if (m <= 0) return;
    if (m > kGemvMaxRows) throw Error("awq_gemv: at most 8 rows per call (use gemm_mma_awq for more)");
    if (w.group_size > kMaxGroup || w.group_size % 32 != 0 || w.k % w.group_size != 0 || w.n % 8 != 0)
        throw Error("awq_gemv: unsupported AWQ shape (group size " + std::to_string(w.group_size) + ", k " + std::to_string(w.k) +
                    ", n " + std::to_string(w.n) + ")");
    if (splits <= 0) splits = awq_gemv_splits(w.k, w.n, w.group_size, sm_count);
    if (splits > 1 && (ws.partial_floats < split_k_partial_floats(m, w.n, splits) || ws.num_counters < split_k_counters(m, w.n)))
        throw Error("awq_gemv: split-K workspace too small");
    if (m == 1) return launch_gemv<1>(w, x, m, y, out_fp32, splits, ws, stream);
    if (m == 2) return launch_gemv<2>(w, x, m, y, out_fp32, splits, ws, stream);
    if (m <= 4) return launch_gemv<4>(w, x, m, y, out_fp32, splits, ws, stream);
    return launch_gemv<8>(w, x, m, y, out_fp32, splits, ws, stream);
}

}  // namespace folio::cuda
