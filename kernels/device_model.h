#pragma once
// The model's weights on the device, in the layouts the kernels read, uploaded as the launch plan
// (launch_plan.h) reads them: fp16 for dense matrices, embeddings and the (tied or separate) lm_head;
// AWQ matrices kept in the AutoAWQ GEMM layout; FP8 matrices as codes with a scale per row; fp32 norm
// weights, q/k/v biases and RoPE inverse frequencies. The parts of a fused Linear launch (q/k/v,
// gate/up) become one matrix (their rows side by side), so a Llama layer runs four matrix products
// instead of seven.
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/core/load_progress.h"
#include "kernels/common/cuda_compat.h"
#include "kernels/device_buffer.h"
#include "kernels/gemm.h"
#include "kernels/launch_plan.h"

namespace folio {
struct Model;
}

namespace folio::cuda {

struct DeviceLinear {
    enum class Kind { Dense, Awq, Fp8 };
    Kind kind = Kind::Dense;
    int in = 0, out = 0, group_size = 0;
    DeviceBuffer<uint8_t> codes;       // FP8 [out, in]: fused parts' rows one after another
    DeviceBuffer<float> row_scales;    // FP8 [out]: each part keeps its own scales (no requantization)
    bool e5m2 = false;                 // FP8 E5M2 codes (else E4M3)
    // FP8 with a static activation scheme: the largest of the parts' input_scale (one scale for the
    // fused product, as vLLM takes the max of the shards'); 0: scaled per token at run time.
    float input_scale = 0.0f;
    // FP8: the checkpoint allows quantized activations (its scheme is not weight-only).
    bool quantize_activations = false;
    DeviceBuffer<__half> weight;    // dense [out, in], when owned
    const __half* dense = nullptr;  // weight.get(), or the embedding table for a tied lm_head
    DeviceBuffer<int32_t> qweight;  // [in, out/8]
    DeviceBuffer<int32_t> qzeros;   // [in/g, out/8]
    DeviceBuffer<__half> scales;    // [in/g, out]

    AwqWeightsView awq_view() const { return {qweight.get(), qzeros.get(), scales.get(), in, out, group_size}; }
    DenseWeightsView dense_view() const { return {dense, in, out}; }
    Fp8WeightsView fp8_view() const { return {codes.get(), row_scales.get(), in, out, e5m2}; }
    size_t bytes() const {
        return weight.bytes() + qweight.bytes() + qzeros.bytes() + scales.bytes() + codes.bytes() + row_scales.bytes();
    }
};

struct DeviceModel {
    DeviceBuffer<__half> embed;  // [vocab, hidden]
    LaunchPlan plan;             // what a step launches; its weight indices point into norms and linears
    std::vector<DeviceBuffer<float>> norms;  // [hidden] each, in launch order
    std::vector<DeviceBuffer<float>> qkv_biases;  // [q|k|v width] each (Qwen2), in launch order
    std::vector<DeviceBuffer<float>> head_norms;  // [2 * head_dim] each: q's weight, then k's (Qwen3)
    std::vector<DeviceLinear> linears;       // in launch order (q|k|v, o_proj, gate|up, down per Llama layer)
    DeviceBuffer<float> final_norm;
    DeviceLinear lm_head;        // [vocab, hidden]
    std::vector<DeviceBuffer<float>> rope_tables;  // inv_freq [head_dim / 2] each
    size_t bytes = 0;              // all of the above
    size_t largest_awq_elems = 0;  // in * out of the largest AWQ matrix (dequantisation workspace)
    int largest_fp8_in = 0;        // the widest FP8 matrix input (W8A8 activation workspace)

    size_t rope_bytes() const;
};

// Checks that the kernels support the model's plan and shapes; throws folio::Error naming what is not.
void check_model_supported(const Model& model);

// in * out of the largest AWQ matrix as upload_model fuses them (the dequantisation workspace).
size_t largest_fused_awq_elems(const Model& model);

// The widest input of an FP8 matrix (0: none), for the W8A8 activation workspace.
int largest_fp8_in(const Model& model);

// Uploads (and converts, fuses) every weight; `progress` gets "uploading to GPU" in MiB.
DeviceModel upload_model(const Model& model, cudaStream_t stream, const LoadProgressFn& progress);

}  // namespace folio::cuda
