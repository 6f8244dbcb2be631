#pragma once
// FP8 at load (`--quantization fp8`): an fp16/bf16/fp32 model's decoder linears become FP8 E4M3 with
// one scale per output channel, scale = amax(|row|) / 448 and code = fp8(w / scale) (round to nearest
// even, saturating), like vLLM's dynamic FP8 but per channel; lm_head, embeddings and norms stay as
// they are. Each source matrix is released as soon as it is converted (owned buffers freed, mapped
// checkpoint pages dropped), so memory peaks near the larger of the two copies, not their sum.
#include <cstdint>
#include <string>

namespace folio {

struct Model;

// Parses a --quantization value: "" or "none" (keep the checkpoint's weights) or "fp8"; throws
// folio::Error naming the choices otherwise. Returns true for fp8.
bool parse_load_quantization(const std::string& value);

struct Fp8QuantizeStats {
    int matrices = 0;
    uint64_t bytes_before = 0;  // the converted linears as they were stored
    uint64_t bytes_after = 0;   // as FP8 codes plus scales
    double seconds = 0;
};

// Converts `model` in place (its config then says quant method Fp8, source AtLoad). Throws
// folio::Error when the model is already quantized (AWQ or FP8) or a weight holds NaN or infinity
// (naming the tensor).
Fp8QuantizeStats quantize_fp8_at_load(Model& model);

}  // namespace folio
