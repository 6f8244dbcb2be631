// The fast mode's dense kernel for fp16 and bf16 weights on AVX512-BF16 (kernels.h: DenseHalfTable;
// kernels_isa.h says why the pragma comes after the includes).
//
// Why: on Zen 4 VDPBF16PS issues at VFMADD231PS's rate with twice its products (32 per instruction:
// 7.3 G/s each on the 2-vCPU EPYC, cpu_kernel_bench), so a prompt's dense linears can run at twice the
// fp32 kernel's roof. (On the Sapphire Rapids Xeon it issues at a quarter of that rate; there the fp16
// kernel is chosen, kernels.cpp.) Weights and activations are rounded to bf16 (8 significant bits;
// bf16 weights are used as stored) and VDPBF16PS sums each pair of products into fp32 lanes, so the
// error is that of the two roundings, about 2^-8 of each product at worst and far less on a sum of many,
// with no scaling: bf16 has fp32's range.
#include "engine/cpu/kernels_isa.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,fma,f16c")
namespace folio::cpu::avx512bf16 {
namespace {

constexpr int kMR = 6, kNR = 4;      // register tile: 6 tokens x 4 rows = 24 fp32 accumulators
constexpr size_t kBlockBytes = size_t(384) << 10;  // a block of bf16 rows stays in L2
// How far ahead of the one-token stream the software prefetch reaches: 8 KiB (two rows at 2048
// inputs). On the 2-vCPU Zen 5 EPYC, all linears of dummy:llama-0.8b's fp16 weights at m = 1
// (cpu_kernel_bench, binaries alternating, 5 rounds): 512 bytes ahead 43.7 ms median, 4 KiB 36.9,
// 8 KiB 34.2 (32.6-38.9); on Zen 4 512 bytes had measured 0-8% over none.
constexpr int kPrefetchWeights = 4096;

#include "engine/cpu/kernels_half.inc"  // hsum, absmax_bits

inline __m512bh as_bh(__m512i v) { return (__m512bh)v; }

// 32 weights of a row as bf16, from `src`: bf16 as stored; fp16 exact to fp32, then rounded to nearest
// even (VCVTNE2PS2BF16). A masked load (a row's last, partial 32) reads the lanes of `tail` and zeros
// the rest, which meet the activations' zero padding.
template <bool kF16>
inline __m512i weights_bf16(const uint16_t* src, bool masked, __mmask32 tail) {
    const __m512i h = masked ? _mm512_maskz_loadu_epi16(tail, src) : _mm512_loadu_si512(src);
    if (!kF16) return h;
    const __m512 lo = _mm512_cvtph_ps(_mm512_castsi512_si256(h));
    const __m512 hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1));
    return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
}

inline __mmask32 tail_mask(int in) { return __mmask32((uint64_t(1) << (in % 32)) - 1); }

// y[u * ldy + j] = row j . token u for NR rows and MR tokens (x: bf16, ldx apart, zero-padded to a
// multiple of 32), over the rows' `in` inputs, 32 at a time from zeroed registers: lane l takes inputs
// 32 s + 2l and 32 s + 2l + 1 in increasing s, then hsum folds the lanes. `load(row + k, masked)`
// gives 32 of a row's weights as bf16; the products and their order do not depend on where the
// weights come from, so both paths below give the same bits. Writes the first `nrows` rows.
template <int MR, int NR, typename Load>
inline void tile(const uint16_t* const* rows, int in, Load load, const uint16_t* x, int ldx, float* y, int ldy, int nrows) {
    __m512 a[NR][MR];
    for (int j = 0; j < NR; ++j)
        for (int u = 0; u < MR; ++u) a[j][u] = _mm512_setzero_ps();
    const auto step = [&](int k, bool masked) {
        __m512i wv[NR];
        for (int j = 0; j < NR; ++j) wv[j] = load(rows[j] + k, masked);
        for (int u = 0; u < MR; ++u) {
            const __m512bh xv = as_bh(_mm512_loadu_si512(x + size_t(u) * size_t(ldx) + size_t(k)));
            for (int j = 0; j < NR; ++j) a[j][u] = _mm512_dpbf16_ps(a[j][u], as_bh(wv[j]), xv);
        }
    };
    const int full = in / 32 * 32;
    for (int k = 0; k < full; k += 32) step(k, false);
    if (full < in) step(full, true);
    for (int j = 0; j < nrows; ++j)
        for (int u = 0; u < MR; ++u) y[size_t(u) * size_t(ldy) + size_t(j)] = hsum(a[j][u]);
}

// Rows [r0, r0 + nb) of w as bf16 into buf [nb][ld] (ld = in rounded up to 32, zero-padded).
void rows_to_bf16(const DenseMatrix& w, int r0, int nb, uint16_t* buf, int ld) {
    const int in = w.cols;
    const int full = in / 32 * 32;
    for (int j = 0; j < nb; ++j) {
        const uint16_t* src = static_cast<const uint16_t*>(w.data) + size_t(r0 + j) * size_t(in);
        uint16_t* dst = buf + size_t(j) * size_t(ld);
        if (w.dtype == DType::BF16) {
            std::memcpy(dst, src, sizeof(uint16_t) * size_t(in));
            for (int k = in; k < ld; ++k) dst[k] = 0;
        } else {
            for (int k = 0; k < full; k += 32) _mm512_storeu_si512(dst + k, weights_bf16<true>(src + k, false, 0));
            if (full < in) _mm512_storeu_si512(dst + full, weights_bf16<true>(src + full, true, tail_mask(in)));
        }
    }
}

// The block's rows (bf16 in buf, ld apart) against tokens [t0, t0 + MR), each tile over whole rows.
// Passes over slices of the inputs (to keep the tokens' slice of x in L1) measured slower on Zen 4:
// 512-input slices ran at 1.8x the fp32 kernel, whole rows at 2.2-2.4x (cpu_kernel_bench --ab, m = 128);
// the tile's loads and stores of its 24 accumulators per slice cost more than x's L2 reads.
// Rows past nb repeat the last row (computed, not written).
template <int MR>
void block_tokens(const uint16_t* buf, int ld, int in, int r0, int nb, int out, const uint16_t* xh, int ldx, int t0, float* y) {
    const auto load = [](const uint16_t* p, bool) { return _mm512_loadu_si512(p); };  // zero-padded to ld
    for (int j = 0; j < nb; j += kNR) {
        const uint16_t* rows[kNR];
        for (int q = 0; q < kNR; ++q) rows[q] = buf + size_t(std::min(j + q, nb - 1)) * size_t(ld);
        tile<MR, kNR>(rows, in, load, xh + size_t(t0) * size_t(ldx), ldx, y + size_t(t0) * size_t(out) + size_t(r0 + j), out,
                      std::min(kNR, nb - j));
    }
}

// Tokens [0, MR) (all of them: MR = m <= kMR) straight from the stored rows, each 32-input step of the
// rows rounded to bf16 in registers. For decode the blocked path's copy of every weight to scratch and
// back cost a third of the step (12.9 against 15.9 tok/s for the fp32 kernel).
// One token reads one row at a time: the weights are then a single ascending stream, which the
// hardware prefetchers follow across rows and pages; 8 rows at once are 8 streams a row (one 4 KiB page
// at 2048 inputs) long each, and ran no faster than the fp32 kernel. On the 2-vCPU EPYC, m = 1, all
// linears of dummy:llama-0.8b's fp16 weights (cpu_kernel_bench --ab, against the fp32 kernel in the
// same process): 1 row 1.16-1.45x, 2 rows 0.8x, 8 rows 0.98-1.02x; a software prefetch adds more
// (kPrefetchWeights). Two tokens take 8 rows at a time (more loads in flight: 1.00-1.03x the fp32
// kernel's time against 1.12-1.16x with 4 rows). A row's result does not depend on its group, and one
// accumulator per row and token sums in the same order whatever the group, so the bits are the same.
template <int MR, bool kF16, int NR = (MR == 1 ? 1 : MR == 2 ? 8 : kNR)>
void direct_tokens(const DenseMatrix& w, int row_begin, int row_end, const uint16_t* xh, int ldx, float* y) {
    const int in = w.cols;
    const __mmask32 tail = tail_mask(in);
    const auto load = [tail](const uint16_t* p, bool masked) {
        // One stream: kPrefetchWeights ahead is a later row of the same matrix (rows are contiguous).
        // A prefetch past the matrix's end is dropped, never a fault.
        if constexpr (NR == 1) _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchWeights), _MM_HINT_T0);
        return weights_bf16<kF16>(p, masked, tail);
    };
    const uint16_t* base = static_cast<const uint16_t*>(w.data);
    for (int r = row_begin; r < row_end; r += NR) {
        const uint16_t* rows[NR];
        for (int q = 0; q < NR; ++q) rows[q] = base + size_t(std::min(r + q, row_end - 1)) * size_t(in);
        tile<MR, NR>(rows, in, load, xh, ldx, y + r, w.rows, std::min(NR, row_end - r));
    }
}

template <bool kF16>
void direct_rows(const DenseMatrix& w, int row_begin, int row_end, const uint16_t* xh, int ldx, int m, float* y) {
    switch (m) {
        case 1: direct_tokens<1, kF16>(w, row_begin, row_end, xh, ldx, y); break;
        case 2: direct_tokens<2, kF16>(w, row_begin, row_end, xh, ldx, y); break;
        case 3: direct_tokens<3, kF16>(w, row_begin, row_end, xh, ldx, y); break;
        case 4: direct_tokens<4, kF16>(w, row_begin, row_end, xh, ldx, y); break;
        case 5: direct_tokens<5, kF16>(w, row_begin, row_end, xh, ldx, y); break;
        default: direct_tokens<6, kF16>(w, row_begin, row_end, xh, ldx, y); break;
    }
}

void dense_rows(const DenseMatrix& w, int row_begin, int row_end, const uint16_t* xh, int ldx, const float* /*unscale*/, int m,
                float* y) {
    if (m <= kMR) {  // one token group: every weight is used once, so no copy to scratch
        if (w.dtype == DType::BF16) direct_rows<false>(w, row_begin, row_end, xh, ldx, m, y);
        else direct_rows<true>(w, row_begin, row_end, xh, ldx, m, y);
        return;
    }
    const int in = w.cols, ld = (in + 31) & ~31;
    const int rows_fit = int(std::max<size_t>(kNR, kBlockBytes / (size_t(ld) * 2)));
    const int block = std::max(kNR, std::min(64, rows_fit) / kNR * kNR);
    uint16_t* const buf = static_cast<uint16_t*>(kernel_scratch(ScratchSlot::DenseRows, sizeof(uint16_t) * size_t(block) * size_t(ld)));
    for (int r0 = row_begin; r0 < row_end; r0 += block) {
        const int nb = std::min(block, row_end - r0);
        rows_to_bf16(w, r0, nb, buf, ld);
        int t0 = 0;
        for (; t0 + kMR <= m; t0 += kMR) block_tokens<kMR>(buf, ld, in, r0, nb, w.rows, xh, ldx, t0, y);
        switch (m - t0) {
            case 0: break;
            case 5: block_tokens<5>(buf, ld, in, r0, nb, w.rows, xh, ldx, t0, y); break;
            case 4: block_tokens<4>(buf, ld, in, r0, nb, w.rows, xh, ldx, t0, y); break;
            case 3: block_tokens<3>(buf, ld, in, r0, nb, w.rows, xh, ldx, t0, y); break;
            case 2: block_tokens<2>(buf, ld, in, r0, nb, w.rows, xh, ldx, t0, y); break;
            default: block_tokens<1>(buf, ld, in, r0, nb, w.rows, xh, ldx, t0, y); break;
        }
    }
}

// Rows [t_begin, t_end) of x [., in] to bf16 (round to nearest even) in xh [., ldx], zero-padded.
// No scaling is needed (bf16 has fp32's exponent range): unscale[t] = 1.
void acts_to_half(const float* x, int t_begin, int t_end, int in, float /*w_absmax*/, uint16_t* xh, int ldx, float* unscale) {
    for (int t = t_begin; t < t_end; ++t) {
        const float* row = x + size_t(t) * size_t(in);
        uint16_t* dst = xh + size_t(t) * size_t(ldx);
        int i = 0;
        for (; i + 32 <= in; i += 32) {
            const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(row + i + 16), _mm512_loadu_ps(row + i));
            _mm512_storeu_si512(dst + i, (__m512i)b);
        }
        for (; i < in; i += 16) {
            const int n = std::min(16, in - i);
            const __mmask16 mk = __mmask16((1u << n) - 1);
            const __m256bh b = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mk, row + i));
            _mm256_mask_storeu_epi16(dst + i, mk, (__m256i)b);
        }
        for (int p = in; p < ldx; ++p) dst[p] = 0;
        unscale[t] = 1.0f;
    }
}

}  // namespace

extern const DenseHalfTable table;
const DenseHalfTable table = {"avx512bf16", 0, 8, true, &absmax_bits, &acts_to_half, &dense_rows};

}  // namespace folio::cpu::avx512bf16
#pragma GCC pop_options
