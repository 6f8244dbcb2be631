// The fast mode's dense kernel for fp16 weights, on AVX512-FP16 (kernels.h: DenseHalfTable; kernels_isa.h
// says why the pragma comes after the includes).
//
// Why fp16 products and not bf16 (VDPBF16PS): on the Xeon this was written on, VDPBF16PS issues at a
// quarter of VFMADD231PS's rate (half its products), while VFMADD231PH issues at the FMA's rate with
// twice its products (32 per instruction). Each fp16 accumulator lane sums kSteps products in fp16
// (a product rounds to 11 significant bits like the operands), then the partial sums are folded into
// fp32 accumulators, so the rounding error stays that of a 16-term fp16 sum per lane, whatever the
// number of inputs. Activations are scaled per token by a power of two (exact) so that no product or
// partial sum can leave fp16's range: |x| * max|w| * kSteps <= 2^15 < 65504.
#include "engine/cpu/kernels_isa.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16,fma,f16c")
namespace folio::cpu::avx512fp16 {
namespace {

constexpr int kSteps = 16;            // 32-input steps summed in fp16 before each fold into fp32
constexpr int kChunk = 32 * kSteps;   // inputs per fold (the tokens' slice of x stays in L1)
constexpr int kMR = 6, kNR = 4;       // register tile: 6 tokens x 4 rows = 24 fp16 accumulators
constexpr float kPartialLimit = 32768.0f;  // bound on any fp16 partial sum (< 65504)

#include "engine/cpu/kernels_half.inc"  // hsum, absmax_bits

// Maximum of 16 lanes, folded 8, 4, 2, 1 (GCC 12's _mm512_reduce_* warn inside its headers).
inline float hmax(__m512 v) {
    alignas(64) float f[16];
    _mm512_store_ps(f, v);
    for (int w = 8; w > 0; w /= 2)
        for (int l = 0; l < w; ++l) f[l] = std::max(f[l], f[l + w]);
    return f[0];
}

// out[t] = fold of the fp16 accumulator into 16 fp32 lanes: low half + high half, then added.
inline __m512 widen(__m512h a) {
    const __m512i bits = _mm512_castph_si512(a);
    const __m512 lo = _mm512_cvtxph_ps(_mm256_castsi256_ph(_mm512_castsi512_si256(bits)));
    const __m512 hi = _mm512_cvtxph_ps(_mm256_castsi256_ph(_mm512_extracti64x4_epi64(bits, 1)));
    return _mm512_add_ps(lo, hi);
}

// acc[j * MR + u] (16 fp32 lanes) += the fp16 sums of w row j . x token u over inputs [k0, k1): lane l
// of the fp16 accumulator sums inputs 32 s + l in increasing s, then the fold. `tail_mask` covers the
// inputs of the last, partial step (k1 == in, not a multiple of 32); x is zero-padded to ldx.
template <int MR>
inline void tile(const uint16_t* const* wrow, const uint16_t* x, int ldx, int k0, int k1, __mmask32 tail_mask, float* acc) {
    __m512h a[kNR][MR];
    for (int j = 0; j < kNR; ++j)
        for (int u = 0; u < MR; ++u) a[j][u] = _mm512_setzero_ph();
    const int full_end = k0 + (k1 - k0) / 32 * 32;
    int k = k0;
    for (; k < full_end; k += 32) {
        __m512h wv[kNR];
        for (int j = 0; j < kNR; ++j) wv[j] = _mm512_castsi512_ph(_mm512_loadu_si512(wrow[j] + k));
        for (int u = 0; u < MR; ++u) {
            const __m512h xv = _mm512_castsi512_ph(_mm512_loadu_si512(x + size_t(u) * size_t(ldx) + size_t(k)));
            for (int j = 0; j < kNR; ++j) a[j][u] = _mm512_fmadd_ph(wv[j], xv, a[j][u]);
        }
    }
    if (k < k1) {  // the partial last step: masked weight loads (never past the row), x is zero there
        __m512h wv[kNR];
        for (int j = 0; j < kNR; ++j) wv[j] = _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(tail_mask, wrow[j] + k));
        for (int u = 0; u < MR; ++u) {
            const __m512h xv = _mm512_castsi512_ph(_mm512_loadu_si512(x + size_t(u) * size_t(ldx) + size_t(k)));
            for (int j = 0; j < kNR; ++j) a[j][u] = _mm512_fmadd_ph(wv[j], xv, a[j][u]);
        }
    }
    for (int j = 0; j < kNR; ++j)
        for (int u = 0; u < MR; ++u) {
            float* p = acc + (size_t(j) * MR + u) * 16;
            _mm512_storeu_ps(p, _mm512_add_ps(_mm512_loadu_ps(p), widen(a[j][u])));
        }
}

// Rows [r0, r0 + nb) of one block against tokens [t0, t0 + MR): chunks of inputs outermost so the
// tokens' slice of x stays in L1 while every row group of the block passes; then each element's 16
// lanes are summed (a fixed order) and unscaled. Rows past nb repeat the last row, never stored.
template <int MR>
void block_tokens(const DenseMatrix& w, int r0, int nb, const uint16_t* xh, int ldx, const float* unscale, int t0, float* acc,
                  float* y) {
    const int in = w.cols, out = w.rows;
    const int nb_pad = (nb + kNR - 1) / kNR * kNR;
    const uint16_t* base = static_cast<const uint16_t*>(w.data);
    const __mmask32 tail_mask = (in & 31) ? __mmask32((1u << (in & 31)) - 1) : __mmask32(0xFFFFFFFFu);
    std::memset(acc, 0, sizeof(float) * size_t(nb_pad) * MR * 16);
    const uint16_t* xt = xh + size_t(t0) * size_t(ldx);
    for (int k0 = 0; k0 < in; k0 += kChunk) {
        const int k1 = std::min(in, k0 + kChunk);
        for (int j = 0; j < nb_pad; j += kNR) {
            const uint16_t* rows[kNR];
            for (int q = 0; q < kNR; ++q) rows[q] = base + size_t(r0 + std::min(j + q, nb - 1)) * size_t(in);
            tile<MR>(rows, xt, ldx, k0, k1, tail_mask, acc + size_t(j) * MR * 16);
        }
    }
    for (int u = 0; u < MR; ++u)
        for (int j = 0; j < nb; ++j)
            y[size_t(t0 + u) * size_t(out) + size_t(r0 + j)] = hsum(_mm512_loadu_ps(acc + (size_t(j) * MR + u) * 16)) * unscale[t0 + u];
}

void dense_rows(const DenseMatrix& w, int row_begin, int row_end, const uint16_t* xh, int ldx, const float* unscale, int m, float* y) {
    // Blocks of rows small enough to stay in L2 (at most ~384 KiB of fp16) while every token tile passes.
    const size_t row_bytes = size_t(w.cols) * 2;
    const int rows_fit = int(std::max<size_t>(kNR, (size_t(384) << 10) / row_bytes));
    const int block = std::max(kNR, std::min(64, rows_fit) / kNR * kNR);
    float* const acc = static_cast<float*>(kernel_scratch(ScratchSlot::DenseAcc, sizeof(float) * size_t(block) * kMR * 16));
    for (int r0 = row_begin; r0 < row_end; r0 += block) {
        const int nb = std::min(block, row_end - r0);
        int t0 = 0;
        for (; t0 + kMR <= m; t0 += kMR) block_tokens<kMR>(w, r0, nb, xh, ldx, unscale, t0, acc, y);
        switch (m - t0) {
            case 0: break;
            case 5: block_tokens<5>(w, r0, nb, xh, ldx, unscale, t0, acc, y); break;
            case 4: block_tokens<4>(w, r0, nb, xh, ldx, unscale, t0, acc, y); break;
            case 3: block_tokens<3>(w, r0, nb, xh, ldx, unscale, t0, acc, y); break;
            case 2: block_tokens<2>(w, r0, nb, xh, ldx, unscale, t0, acc, y); break;
            default: block_tokens<1>(w, r0, nb, xh, ldx, unscale, t0, acc, y); break;
        }
    }
}

// Rows [t_begin, t_end) of x [., in] to fp16, each scaled by the power of two 2^e that brings its
// largest |x| closest to (not above) limit = min(2^14, kPartialLimit / (kSteps * w_absmax)); unscale[t] = 2^-e.
void acts_to_half(const float* x, int t_begin, int t_end, int in, float w_absmax, uint16_t* xh, int ldx, float* unscale) {
    const float limit = std::min(16384.0f, w_absmax > 0 ? kPartialLimit / (float(kSteps) * w_absmax) : 16384.0f);
    for (int t = t_begin; t < t_end; ++t) {
        const float* row = x + size_t(t) * size_t(in);
        __m512 mx = _mm512_setzero_ps();
        int i = 0;
        for (; i + 16 <= in; i += 16) mx = _mm512_max_ps(mx, _mm512_abs_ps(_mm512_loadu_ps(row + i)));
        float amax = hmax(mx);
        for (; i < in; ++i) amax = std::max(amax, std::fabs(row[i]));
        int e = 0;
        if (amax > 0 && std::isfinite(amax) && std::isfinite(limit)) {
            std::frexp(limit / amax, &e);
            e -= 1;  // 2^e <= limit / amax
            if (std::ldexp(amax, e) > limit) --e;
            e = std::clamp(e, -126, 126);
        }
        const __m512 s = _mm512_set1_ps(std::ldexp(1.0f, e));
        uint16_t* dst = xh + size_t(t) * size_t(ldx);
        i = 0;
        for (; i + 16 <= in; i += 16)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                                _mm256_castph_si256(_mm512_cvtxps_ph(_mm512_mul_ps(_mm512_loadu_ps(row + i), s))));
        if (i < in) {
            const __mmask16 mk = __mmask16((1u << (in - i)) - 1);
            const __m256i h = _mm256_castph_si256(_mm512_cvtxps_ph(_mm512_mul_ps(_mm512_maskz_loadu_ps(mk, row + i), s)));
            _mm256_mask_storeu_epi16(dst + i, mk, h);
        }
        for (int p = in; p < ldx; ++p) dst[p] = 0;
        unscale[t] = std::ldexp(1.0f, -e);
    }
}

}  // namespace

extern const DenseHalfTable table;
const DenseHalfTable table = {"avx512fp16", kSteps, 11, false, &absmax_bits, &acts_to_half, &dense_rows};

}  // namespace folio::cpu::avx512fp16
#pragma GCC pop_options
