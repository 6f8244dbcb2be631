#pragma once
// compressed-tensors "pack-quantized" int4 linears, repacked at load into Folio's AWQ layout
// (weights.h AwqMatrix) so both backends run them with their AWQ kernels unchanged.
//
// The checkpoint layout (compressed-tensors' pack_to_int32), for a linear [out, in] with groups of g:
//   weight_packed      int32 [out, in/8]: nibble j (bits 4j..4j+3) of word w holds input column 8w + j,
//                      as the unsigned value q + 8 of the signed int4 q in [-8, 7];
//   weight_scale       F16/BF16/F32 [out, in/g];
//   weight_zero_point  int32 [out/8, in/g], packed along the output dimension: nibble j of row r holds
//                      output row 8r + j, also as zp + 8 (only when the weights are not symmetric);
//   weight_shape       int32/int64 [2] = {out, in}.
//   w[o][i] = (q - zp) * scale[o][i/g]  (zp = 0 when symmetric).
// Both offsets cancel, so the AWQ values are q + 8 and zp + 8 (8 when symmetric). The AWQ kernels take
// fp16 scales: F16 ones are kept as they are, BF16 ones convert exactly from 2^-17 to 65504 (where
// real scales lie; smaller ones round to the nearest fp16), F32 ones round to the nearest fp16.
#include <memory>
#include <string>
#include <vector>

#include "engine/model/checkpoint.h"
#include "engine/model/model_config.h"
#include "engine/model/weights.h"

namespace folio {

// The int4 linear `module` ([out, in]) repacked into owned AWQ buffers (kept alive by `storage`).
// Throws folio::Error naming the tensor and file for a missing or misshapen tensor, a weight_shape
// that disagrees with config.json, a group size that does not divide `in`, an `out` that is not a
// multiple of 8, a weight_g_idx (activation-ordered groups), or a scale outside fp16's range.
Linear load_pack_quantized_linear(const Checkpoint& ck, const QuantConfig& config, const std::string& module, int in, int out,
                                  std::vector<std::shared_ptr<const void>>& storage);

}  // namespace folio
