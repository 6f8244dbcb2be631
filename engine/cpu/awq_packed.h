#pragma once
// AWQ weights repacked at load into the order the integer kernels stream: for each block of 16
// output columns, group after group, the group's 4-bit values in rows of 64 bytes followed by one
// 64-byte row of metadata. A thread that owns a range of column blocks reads one contiguous range.
//
// Row ks of group g of column block cb covers inputs k0 = g*group_size + 8*ks .. k0+7:
//   byte 4*j + b (j < 16 the column within the block, b < 4):
//     low nibble  = q[k0 + b][16*cb + j]
//     high nibble = q[k0 + 4 + b][16*cb + j]
// so the low (high) nibbles of a row are a 16-column x 4-input tile in the operand order of
// VPDPBUSD and of an AMX B tile. Metadata row: 16 fp16 scales (bytes 0..31), 16 zero points as
// bytes (32..47), zeros (48..63). When out is not a multiple of 16, the missing columns of the last
// block hold q = z = s = 0.
//
// The same layout holds 8-bit weights (bits == 8: a dense matrix quantized at load by pack_q8): a
// row of 64 bytes then covers inputs k0 = g*group_size + 4*ks .. k0+3, byte 4*j + b = q[k0 + b] of
// column 16*cb + j plus 128 (q in [-127, 127], so the byte is unsigned as VPDPBUSD wants it), a group
// has group_size / 4 rows, and every zero point of the metadata row is 128.
#include <cstdint>
#include <memory>

#include "engine/model/weights.h"

namespace folio::cpu {

struct AwqPacked {
    int in = 0;
    int out = 0;
    int group_size = 128;
    int bits = 4;              // 4: AWQ; 8: pack_q8
    int num_groups = 0;        // in / group_size
    int num_col_blocks = 0;    // ceil(out / 16)
    int64_t group_bytes = 0;   // group_size * bits * 2 + 64
    int64_t block_bytes = 0;   // num_groups * group_bytes
    const uint8_t* data = nullptr;
    std::shared_ptr<uint8_t> storage;

    const uint8_t* group(int cb, int g) const { return data + int64_t(cb) * block_bytes + int64_t(g) * group_bytes; }
};

class WeightArena;

// Repacks an AutoAWQ GEMM matrix (see weights.h) into the next slice of `arena`, or into a buffer of
// its own. Throws folio::Error when the shape cannot be packed (out not a multiple of 8, in not a
// multiple of the group size, group size not a multiple of 8).
AwqPacked pack_awq(const AwqMatrix& m, WeightArena& arena);
AwqPacked pack_awq(const AwqMatrix& m);
// Bytes the packed matrix takes (what pack_awq takes from an arena).
size_t awq_packed_bytes(const AwqMatrix& m);

// A dense matrix quantized to 8 bits per weight in the layout above: per output and group of
// `group_size` inputs s = fp16(max|w| / 127) and q = clamp(round(w / s), -127, 127), round half to
// even. The CPU backend's int8 mode stores an AWQ model's dense lm_head this way (llama.cpp's 4-bit
// mixes keep theirs in 6 bits): a quarter of the fp16 bytes a decode step streams. Throws
// folio::Error for shapes it cannot pack (as pack_awq).
AwqPacked pack_q8(const DenseMatrix& m, int group_size, WeightArena& arena);
AwqPacked pack_q8(const DenseMatrix& m, int group_size);
size_t q8_packed_bytes(const DenseMatrix& m, int group_size);

// The value q of input i, output o and its group's zero point and scale, read back from the packed
// layout (for tests and for checking a pack); for 8 bits, q is the stored byte (weight + 128).
int packed_q(const AwqPacked& p, int i, int o);
int packed_zero(const AwqPacked& p, int g, int o);
uint16_t packed_scale(const AwqPacked& p, int g, int o);

}  // namespace folio::cpu
