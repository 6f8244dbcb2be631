#pragma once
// The model's weights on the device, in the layouts the kernels read: fp16 for dense matrices,
// embeddings and the (tied or separate) lm_head; AWQ matrices kept in the AutoAWQ GEMM layout; fp32
// norm weights and RoPE inverse frequencies. Q/K/V and gate/up are fused at upload into one matrix
// each (their columns side by side), so a layer runs four matrix products instead of seven.
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/core/load_progress.h"
#include "kernels/common/cuda_compat.h"
#include "kernels/device_buffer.h"
#include "kernels/gemm.h"

namespace folio {
struct Model;
}

namespace folio::cuda {

struct DeviceLinear {
    enum class Kind { Dense, Awq };
    Kind kind = Kind::Dense;
    int in = 0, out = 0, group_size = 0;
    DeviceBuffer<__half> weight;    // dense [out, in], when owned
    const __half* dense = nullptr;  // weight.get(), or the embedding table for a tied lm_head
    DeviceBuffer<int32_t> qweight;  // [in, out/8]
    DeviceBuffer<int32_t> qzeros;   // [in/g, out/8]
    DeviceBuffer<__half> scales;    // [in/g, out]

    AwqWeightsView awq_view() const { return {qweight.get(), qzeros.get(), scales.get(), in, out, group_size}; }
    DenseWeightsView dense_view() const { return {dense, in, out}; }
    size_t bytes() const { return weight.bytes() + qweight.bytes() + qzeros.bytes() + scales.bytes(); }
};

struct DeviceLayer {
    DeviceBuffer<float> input_norm, post_norm;  // [hidden]
    DeviceLinear qkv;      // [q + k + v, hidden]
    DeviceLinear o_proj;   // [hidden, heads * head_dim]
    DeviceLinear gate_up;  // [2 * intermediate, hidden]
    DeviceLinear down;     // [hidden, intermediate]
};

struct DeviceModel {
    DeviceBuffer<__half> embed;  // [vocab, hidden]
    std::vector<DeviceLayer> layers;
    DeviceBuffer<float> final_norm;
    DeviceLinear lm_head;        // [vocab, hidden]
    DeviceBuffer<float> inv_freq;  // [head_dim / 2]
    size_t bytes = 0;              // all of the above
    size_t largest_awq_elems = 0;  // in * out of the largest AWQ matrix (dequantisation workspace)
};

// Checks that the kernels support the model's shapes; throws folio::Error naming what is not.
void check_model_supported(const Model& model);

// in * out of the largest AWQ matrix as upload_model fuses them (the dequantisation workspace).
size_t largest_fused_awq_elems(const Model& model);

// Uploads (and converts, fuses) every weight; `progress` gets "uploading to GPU" in MiB.
DeviceModel upload_model(const Model& model, cudaStream_t stream, const LoadProgressFn& progress);

}  // namespace folio::cuda
