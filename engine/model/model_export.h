#pragma once
// Writes a loaded float model (a dummy:NAME model or a float checkpoint) as a Hugging Face folder:
// config.json, model.safetensors and the tokenizer.model given. As floats in the model's own dtype or
// in the one asked for (fp32, fp16, bf16: rounded to nearest even), or quantized to AutoAWQ GEMM 4-bit (awq_quantize.h; embeddings, norms and lm_head stay floats, as
// AutoAWQ leaves them). Benchmarks use it to give Folio and other engines the same weights.
#include <optional>
#include <string>

#include "engine/model/model.h"

namespace folio {

struct ExportOptions {
    std::string out_dir;          // created; must not exist or be empty
    bool awq = false;             // quantize the layers' linears (round to nearest, group_size)
    int group_size = 128;
    std::optional<DType> dtype;   // the floats' dtype in the folder (F32, F16 or BF16); unset: as loaded
    std::string tokenizer_model;  // a tokenizer.model file (or a folder holding one) to copy in
};

// Throws folio::Error (naming the folder, file or setting) when the model is not a float model, the
// folder is not empty, the tokenizer is missing or its vocabulary does not match, a weight is beyond
// fp16's range when fp16 is asked for (never clamped: the error names the tensor), or a write fails.
void export_model(const Model& model, const ExportOptions& options);

}  // namespace folio
