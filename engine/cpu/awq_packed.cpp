#include "engine/cpu/awq_packed.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/core/error.h"
#include "engine/cpu/act_quant.h"
#include "engine/cpu/weight_arena.h"
#include "engine/model/awq.h"

namespace folio::cpu {

namespace {

void check_shape(const AwqMatrix& m) {
    if (m.out <= 0 || m.out % 8 != 0 || m.group_size <= 0 || m.group_size % 8 != 0 || m.group_size > kMaxQuantBlock || m.in <= 0 || m.in % m.group_size != 0)
        throw Error("cannot repack AWQ matrix [in " + std::to_string(m.in) + ", out " + std::to_string(m.out) + "] with group size " +
                    std::to_string(m.group_size) + ": out must be a multiple of 8 and in a multiple of the group size (itself a multiple of 8, at most " + std::to_string(kMaxQuantBlock) + ")");
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
    AwqPacked p;
    p.in = m.in;
    p.out = m.out;
    p.group_size = m.group_size;
    p.num_groups = m.in / m.group_size;
    p.num_col_blocks = (m.out + 15) / 16;
    p.group_bytes = int64_t(m.group_size) * 8 + 64;
    p.block_bytes = int64_t(p.num_groups) * p.group_bytes;
    const size_t total = size_t(p.block_bytes) * size_t(p.num_col_blocks);
    uint8_t* const raw = arena.take(total);
    p.storage = arena.storage();
    p.data = raw;
    std::memset(raw, 0, total);
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

int packed_q(const AwqPacked& p, int i, int o) {
    const int g = i / p.group_size, r = i % p.group_size;
    const int ks = r / 8, within = r % 8;
    const uint8_t byte = p.group(o / 16, g)[ks * 64 + 4 * (o % 16) + (within & 3)];
    return within < 4 ? (byte & 0xF) : (byte >> 4);
}

int packed_zero(const AwqPacked& p, int g, int o) { return p.group(o / 16, g)[int64_t(p.group_size) * 8 + 32 + o % 16]; }

uint16_t packed_scale(const AwqPacked& p, int g, int o) {
    uint16_t s;
    std::memcpy(&s, p.group(o / 16, g) + int64_t(p.group_size) * 8 + 2 * (o % 16), 2);
    return s;
}

}  // namespace folio::cpu
