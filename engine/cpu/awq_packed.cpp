#include "engine/cpu/awq_packed.h"

#include <algorithm>
#include <cmath>
#include <vector>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/cpu/act_quant.h"
#include "engine/cpu/weight_arena.h"
#include "engine/model/awq.h"

namespace folio::cpu {

namespace {

void check_shape(int in, int out, int group_size, const char* what) {
    if (out <= 0 || out % 8 != 0 || group_size <= 0 || group_size % 8 != 0 || group_size > kMaxQuantBlock || in <= 0 || in % group_size != 0)
        throw Error(std::string("cannot repack ") + what + " [in " + std::to_string(in) + ", out " + std::to_string(out) + "] with group size " +
                    std::to_string(group_size) + ": out must be a multiple of 8 and in a multiple of the group size (itself a multiple of 8, at most " + std::to_string(kMaxQuantBlock) + ")");
}
void check_shape(const AwqMatrix& m) { check_shape(m.in, m.out, m.group_size, "AWQ matrix"); }

AwqPacked empty_pack(int in, int out, int group_size, int bits, WeightArena& arena) {
    AwqPacked p;
    p.in = in;
    p.out = out;
    p.group_size = group_size;
    p.bits = bits;
    p.num_groups = in / group_size;
    p.num_col_blocks = (out + 15) / 16;
    p.group_bytes = int64_t(group_size) * bits * 2 + 64;
    p.block_bytes = int64_t(p.num_groups) * p.group_bytes;
    const size_t total = size_t(p.block_bytes) * size_t(p.num_col_blocks);
    uint8_t* const raw = arena.take(total);
    p.storage = arena.storage();
    p.data = raw;
    std::memset(raw, 0, total);
    return p;
}

float dense_at(const DenseMatrix& m, int64_t i) {
    if (m.dtype == DType::F32) return static_cast<const float*>(m.data)[i];
    const uint16_t h = static_cast<const uint16_t*>(m.data)[i];
    return m.dtype == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
}

}  // namespace

size_t awq_packed_bytes(const AwqMatrix& m) {
    check_shape(m);
    return size_t((m.out + 15) / 16) * size_t(m.in / m.group_size) * (size_t(m.group_size) * 8 + 64);
}

AwqPacked pack_awq(const AwqMatrix& m) {
    WeightArena arena(awq_packed_bytes(m));
    return pack_awq(m, arena);
}

AwqPacked pack_awq(const AwqMatrix& m, WeightArena& arena) {
    check_shape(m);
    AwqPacked p = empty_pack(m.in, m.out, m.group_size, 4, arena);
    uint8_t* const raw = const_cast<uint8_t*>(p.data);
    const int words = m.out / 8;
    for (int cb = 0; cb < p.num_col_blocks; ++cb) {
        const int ncols = std::min(16, m.out - cb * 16);
        for (int g = 0; g < p.num_groups; ++g) {
            uint8_t* dst = raw + int64_t(cb) * p.block_bytes + int64_t(g) * p.group_bytes;
            for (int ks = 0; ks < m.group_size / 8; ++ks) {
                const int k0 = g * m.group_size + ks * 8;
                for (int j = 0; j < ncols; ++j) {
                    const int o = cb * 16 + j;
                    for (int b = 0; b < 4; ++b) {
                        const int lo = awq_unpack(m.qweight[int64_t(k0 + b) * words + o / 8], o % 8);
                        const int hi = awq_unpack(m.qweight[int64_t(k0 + 4 + b) * words + o / 8], o % 8);
                        dst[ks * 64 + 4 * j + b] = uint8_t(lo | (hi << 4));
                    }
                }
            }
            uint8_t* meta = dst + int64_t(m.group_size) * 8;
            for (int j = 0; j < ncols; ++j) {
                const int o = cb * 16 + j;
                const uint16_t s = m.scales[int64_t(g) * m.out + o];
                std::memcpy(meta + 2 * j, &s, 2);
                meta[32 + j] = uint8_t(awq_unpack(m.qzeros[int64_t(g) * words + o / 8], o % 8));
            }
        }
    }
    return p;
}

size_t q8_packed_bytes(const DenseMatrix& m, int group_size) {
    check_shape(m.cols, m.rows, group_size, "dense matrix");
    return size_t((m.rows + 15) / 16) * size_t(m.cols / group_size) * (size_t(group_size) * 16 + 64);
}

AwqPacked pack_q8(const DenseMatrix& m, int group_size) {
    WeightArena arena(q8_packed_bytes(m, group_size));
    return pack_q8(m, group_size, arena);
}

AwqPacked pack_q8(const DenseMatrix& m, int group_size, WeightArena& arena) {
    check_shape(m.cols, m.rows, group_size, "dense matrix");
    AwqPacked p = empty_pack(m.cols, m.rows, group_size, 8, arena);
    uint8_t* const raw = const_cast<uint8_t*>(p.data);
    std::vector<float> row(static_cast<size_t>(m.cols));
    for (int o = 0; o < m.rows; ++o) {
        for (int i = 0; i < m.cols; ++i) row[size_t(i)] = dense_at(m, int64_t(o) * m.cols + i);
        const int cb = o / 16, j = o % 16;
        for (int g = 0; g < p.num_groups; ++g) {
            const float* v = row.data() + size_t(g) * size_t(group_size);
            float amax = 0.0f;
            for (int k = 0; k < group_size; ++k) amax = std::max(amax, std::fabs(v[k]));
            const uint16_t sh = f32_to_f16(amax / 127.0f);
            const float s = f16_to_f32(sh);
            uint8_t* dst = raw + int64_t(cb) * p.block_bytes + int64_t(g) * p.group_bytes;
            for (int k = 0; k < group_size; ++k) {
                const float q = s > 0.0f ? std::clamp(std::nearbyint(v[k] / s), -127.0f, 127.0f) : 0.0f;
                dst[(k / 4) * 64 + 4 * j + k % 4] = uint8_t(int(q) + 128);
            }
            uint8_t* meta = dst + int64_t(group_size) * 16;
            std::memcpy(meta + 2 * j, &sh, 2);
            meta[32 + j] = 128;
        }
    }
    return p;
}

int packed_q(const AwqPacked& p, int i, int o) {
    if (p.bits == 8) {
        const int g = i / p.group_size, r = i % p.group_size;
        return p.group(o / 16, g)[(r / 4) * 64 + 4 * (o % 16) + r % 4];
    }
    const int g = i / p.group_size, r = i % p.group_size;
    const int ks = r / 8, within = r % 8;
    const uint8_t byte = p.group(o / 16, g)[ks * 64 + 4 * (o % 16) + (within & 3)];
    return within < 4 ? (byte & 0xF) : (byte >> 4);
}

int packed_zero(const AwqPacked& p, int g, int o) { return p.group(o / 16, g)[int64_t(p.group_size) * p.bits * 2 + 32 + o % 16]; }

uint16_t packed_scale(const AwqPacked& p, int g, int o) {
    uint16_t s;
    std::memcpy(&s, p.group(o / 16, g) + int64_t(p.group_size) * p.bits * 2 + 2 * (o % 16), 2);
    return s;
}

}  // namespace folio::cpu
