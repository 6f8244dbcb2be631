#pragma once
// The weights of a Llama-family model as plain views into memory-mapped checkpoint files (or owned
// buffers for dummy models). Backends read these and may repack them at load into their own layouts.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/dtype.h"

namespace folio {

// A dense matrix stored as Hugging Face stores nn.Linear weights: row-major [out, in].
struct DenseMatrix {
    DType dtype = DType::F32;  // F32, F16 or BF16
    int rows = 0;              // out features
    int cols = 0;              // in features
    const void* data = nullptr;
};

// An AutoAWQ GEMM 4-bit matrix, kept packed exactly as in the checkpoint:
//   qweight int32 [in, out/8], qzeros int32 [in/g, out/8], scales fp16 [in/g, out];
//   nibble i (bits 4i..4i+3) of int32 c holds output column 8c + {0,2,4,6,1,3,5,7}[i];
//   w[in][out] = (q - z) * s with q, z, s of the group in / group_size.
struct AwqMatrix {
    int in = 0;
    int out = 0;
    int group_size = 128;
    const int32_t* qweight = nullptr;
    const int32_t* qzeros = nullptr;
    const uint16_t* scales = nullptr;  // IEEE fp16 bits
};

// An FP8 matrix [out, in] of 8-bit float codes with one fp32 scale per output row (a per-tensor scale
// is repeated for every row; fused shards keep their own rows' scales):
//   w[o][i] = float(code[o][i]) * scales[o]   (rounded once to fp32: the exact weight every backend uses)
struct Fp8Matrix {
    DType dtype = DType::F8_E4M3;  // F8_E4M3 or F8_E5M2
    int rows = 0;                  // out features
    int cols = 0;                  // in features
    const uint8_t* data = nullptr;
    const float* scales = nullptr;  // [rows]
    // A static per-tensor activation scale from the checkpoint (input_scale); 0 when activations are
    // scaled dynamically or not quantized. Only a backend that quantizes activations (W8A8) reads it.
    float input_scale = 0.0f;
};

// One nn.Linear (no bias in Llama): y[out] = W x[in].
struct Linear {
    enum class Kind { Dense, Awq, Fp8 };
    Kind kind = Kind::Dense;
    int in = 0;
    int out = 0;
    DenseMatrix dense;  // valid when kind == Dense
    AwqMatrix awq;      // valid when kind == Awq
    Fp8Matrix fp8;      // valid when kind == Fp8
};

// A 1-D or 2-D tensor of floats in any float dtype (norm weights, embeddings).
struct FloatTensor {
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    const void* data = nullptr;
    int64_t numel() const {
        int64_t n = 1;
        for (auto d : shape) n *= d;
        return n;
    }
};

// Converts one row of a FloatTensor (any float dtype) to fp32: out[0..cols) = t[row, :]. Both
// backends read norms and embeddings through it.
void row_to_f32(const FloatTensor& t, int64_t row, int64_t cols, float* out);

struct LayerWeights {
    FloatTensor input_norm;      // [hidden]
    Linear q_proj, k_proj, v_proj, o_proj;
    // Qwen2's q/k/v projection biases ([heads * head_dim], [kv_heads * head_dim]) and Qwen3's per-head
    // q/k RMS norm weights ([head_dim]); data is null in families without them.
    FloatTensor q_bias, k_bias, v_bias;
    FloatTensor q_norm, k_norm;
    FloatTensor post_attention_norm;  // [hidden]
    Linear gate_proj, up_proj, down_proj;
    // FP8 KV cache scales of this layer (stored = fp8(x / scale), read = code * scale): from the
    // checkpoint when it has them (kv_scales_from_checkpoint), else 1.0 as vLLM defaults.
    float k_scale = 1.0f, v_scale = 1.0f;
};

struct ModelWeights {
    FloatTensor embed_tokens;  // [vocab, hidden]
    std::vector<LayerWeights> layers;
    FloatTensor final_norm;    // [hidden]
    Linear lm_head;            // [vocab, hidden]; a view of embed_tokens when tied
    bool kv_scales_from_checkpoint = false;  // every layer's k_scale/v_scale came from the checkpoint
    // Keeps the memory behind the views alive (memory maps, owned buffers).
    std::vector<std::shared_ptr<const void>> storage;
    // Bytes of weights a decode step reads once (all linears + lm_head + norms); for benchmarks.
    uint64_t bytes_per_token = 0;
};

}  // namespace folio
