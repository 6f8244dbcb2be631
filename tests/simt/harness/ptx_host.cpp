#include <cstring>
#include <vector>

#include "simt_device.h"
#include "simt_launch.h"
#include "simt_ptx.h"
#include "engine/core/fp8.h"

namespace folio::simt {

namespace {

struct MmaOperands {
    uint32_t a[4];
    uint32_t b[2];
    float c[4];
};
static_assert(sizeof(MmaOperands) <= size_t(kSlotBytes));

// fp16 -> fp32 by table: the conversion dominates mma emulation otherwise.
const float* half_table() {
    static const std::vector<float> table = [] {
        std::vector<float> t(65536);
        for (uint32_t i = 0; i < 65536; ++i) t[i] = folio::f16_to_f32(uint16_t(i));
        return t;
    }();
    return table.data();
}
float lo16(uint32_t r, bool bf16) {
    const auto v = uint16_t(r & 0xffffu);
    return bf16 ? folio::bf16_to_f32(v) : half_table()[v];
}
float hi16(uint32_t r, bool bf16) {
    const auto v = uint16_t(r >> 16);
    return bf16 ? folio::bf16_to_f32(v) : half_table()[v];
}

void mma_m16n8k16(float d[4], const uint32_t a[4], const uint32_t b[2], const float c[4], bool bf16) {
    MmaOperands mine;
    std::memcpy(mine.a, a, sizeof(mine.a));
    std::memcpy(mine.b, b, sizeof(mine.b));
    std::memcpy(mine.c, c, sizeof(mine.c));
    unsigned members = 0;
    const unsigned char* slots = warp_exchange_begin(0xffffffffu, &mine, sizeof(mine), &members);
    if (members != 0xffffffffu) {
        warp_exchange_end();
        fail("mma.sync needs all 32 lanes of the warp");
    }
    // The first lane to read rebuilds A (16x16, row-major) and B (16x8, k x n) from every lane's
    // fragment and computes all of D (16x8) into the collective's scratch; the others just read it.
    bool first = false;
    float* D = static_cast<float*>(warp_exchange_scratch(&first));
    static_assert(16 * 8 * sizeof(float) <= kExchangeScratchBytes);
    if (first) {
    float A[16][16], B[16][8], C[16][8];
    for (int lane = 0; lane < 32; ++lane) {
        MmaOperands op;
        std::memcpy(&op, slots + size_t(lane) * kSlotBytes, sizeof(op));
        const int group = lane >> 2, tig = lane & 3;
        for (int i = 0; i < 8; ++i) {
            const float v = (i & 1) ? hi16(op.a[i / 2], bf16) : lo16(op.a[i / 2], bf16);
            const int row = group + ((i == 2 || i == 3 || i == 6 || i == 7) ? 8 : 0);
            const int col = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);
            A[row][col] = v;
        }
        for (int i = 0; i < 4; ++i) {
            const float v = (i & 1) ? hi16(op.b[i / 2], bf16) : lo16(op.b[i / 2], bf16);
            const int k = tig * 2 + (i & 1) + (i >= 2 ? 8 : 0);
            B[k][group] = v;
        }
        for (int i = 0; i < 4; ++i) C[group + (i >= 2 ? 8 : 0)][tig * 2 + (i & 1)] = op.c[i];
    }
    for (int row = 0; row < 16; ++row)
        for (int col = 0; col < 8; ++col) {
            float acc = C[row][col];
            for (int k = 0; k < 16; ++k) acc += A[row][k] * B[k][col];
            D[row * 8 + col] = acc;
        }
    }
    const int lane = int(lane_id());
    const int group = lane >> 2, tig = lane & 3;
    float out[4];
    for (int i = 0; i < 4; ++i) out[i] = D[(group + (i >= 2 ? 8 : 0)) * 8 + tig * 2 + (i & 1)];
    warp_exchange_end();
    std::memcpy(d, out, sizeof(out));
}

// m16n8k32 with E4M3 codes: a[i] holds four consecutive k of one row (byte j = k 4t + j), rows g
// (a0, a2) and g + 8 (a1, a3), k + 16 for a2, a3; b[i] four consecutive k of column g, k + 16 for b1.
// Each product of two E4M3 values is exact in fp32; the sum runs over k in order from C.
void mma_m16n8k32_e4m3(float d[4], const uint32_t a[4], const uint32_t b[2], const float c[4]) {
    MmaOperands mine;
    std::memcpy(mine.a, a, sizeof(mine.a));
    std::memcpy(mine.b, b, sizeof(mine.b));
    std::memcpy(mine.c, c, sizeof(mine.c));
    unsigned members = 0;
    const unsigned char* slots = warp_exchange_begin(0xffffffffu, &mine, sizeof(mine), &members);
    if (members != 0xffffffffu) {
        warp_exchange_end();
        fail("mma.sync needs all 32 lanes of the warp");
    }
    bool first = false;
    float* D = static_cast<float*>(warp_exchange_scratch(&first));
    if (first) {
        float A[16][32], B[32][8], C[16][8];
        const auto code = [](uint32_t r, int j) { return folio::fp8_e4m3_to_f32(uint8_t((r >> (8 * j)) & 0xFFu)); };
        for (int lane = 0; lane < 32; ++lane) {
            MmaOperands op;
            std::memcpy(&op, slots + size_t(lane) * kSlotBytes, sizeof(op));
            const int group = lane >> 2, tig = lane & 3;
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) A[group + (i & 1) * 8][tig * 4 + j + (i >= 2 ? 16 : 0)] = code(op.a[i], j);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 4; ++j) B[tig * 4 + j + i * 16][group] = code(op.b[i], j);
            for (int i = 0; i < 4; ++i) C[group + (i >= 2 ? 8 : 0)][tig * 2 + (i & 1)] = op.c[i];
        }
        for (int row = 0; row < 16; ++row)
            for (int col = 0; col < 8; ++col) {
                float acc = C[row][col];
                for (int k = 0; k < 32; ++k) acc += A[row][k] * B[k][col];
                D[row * 8 + col] = acc;
            }
    }
    const int lane = int(lane_id());
    const int group = lane >> 2, tig = lane & 3;
    float out[4];
    for (int i = 0; i < 4; ++i) out[i] = D[(group + (i >= 2 ? 8 : 0)) * 8 + tig * 2 + (i & 1)];
    warp_exchange_end();
    std::memcpy(d, out, sizeof(out));
}

}  // namespace

void mma_m16n8k32_e4m3_f32(float d[4], const uint32_t a[4], const uint32_t b[2], const float c[4]) { mma_m16n8k32_e4m3(d, a, b, c); }

void mma_m16n8k16_f16_f32(float d[4], const uint32_t a[4], const uint32_t b[2], const float c[4]) {
    mma_m16n8k16(d, a, b, c, false);
}

void mma_m16n8k16_bf16_f32(float d[4], const uint32_t a[4], const uint32_t b[2], const float c[4]) {
    mma_m16n8k16(d, a, b, c, true);
}

void ldmatrix(uint32_t* regs, int count, bool trans, const void* row_address) {
    if (count != 1 && count != 2 && count != 4) fail("ldmatrix: .x1, .x2 or .x4 only");
    if (int(lane_id()) < 8 * count && reinterpret_cast<uintptr_t>(row_address) % 16 != 0)
        fail("ldmatrix: row address not 16-byte aligned");
    unsigned members = 0;
    const unsigned char* slots = warp_exchange_begin(0xffffffffu, &row_address, sizeof(row_address), &members);
    if (members != 0xffffffffu) {
        warp_exchange_end();
        fail("ldmatrix needs all 32 lanes of the warp");
    }
    const int lane = int(lane_id());
    auto row_ptr = [&](int m, int row) {
        const unsigned char* p;
        std::memcpy(&p, slots + size_t(8 * m + row) * kSlotBytes, sizeof(p));
        return p;
    };
    for (int m = 0; m < count; ++m) {
        uint16_t e[2];
        for (int j = 0; j < 2; ++j) {
            // Without .trans lane l holds row l/4, columns 2(l%4)+j; with .trans the transpose.
            const int row = trans ? 2 * (lane % 4) + j : lane / 4;
            const int col = trans ? lane / 4 : 2 * (lane % 4) + j;
            std::memcpy(&e[j], row_ptr(m, row) + 2 * col, 2);
        }
        regs[m] = uint32_t(e[0]) | (uint32_t(e[1]) << 16);
    }
    warp_exchange_end();
}

}  // namespace folio::simt
