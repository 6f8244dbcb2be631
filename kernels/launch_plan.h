#pragma once
// The CUDA backend's launch sequence, made from the model's plan (engine/model/layer_plan.h) and
// nothing else: the plan's steps in their order, fused where the kernels do two steps in one pass:
//   ResidualAdd, RmsNorm       -> Norm with add_residual (rms_norm adds the sublayer output to the
//                                 residual stream as it normalises); the last layer's add joins the
//                                 final norm (LaunchPlan::final_add_residual)
//   QkvProjection              -> one Linear over q|k|v side by side (fused at upload), then QkvBias
//                                 when the family has q/k/v biases (Qwen2)
//   HeadNorm                   -> HeadNorm over the q and k heads inside qkv (Qwen3)
//   Rope, Attention            -> RopeWriteKv (rotates q and k as it writes K and V to the cache), Attention
//   GatedMlp                   -> Linear over gate|up, SiluMul, Linear down
//   OutProjection              -> Linear
// A step or option the kernels do not run, or an order they cannot fuse, is refused here, at load,
// naming the architecture, the layer, the step and the option (refuse_plan). Host code only: built
// into both folio_cuda and the SIMT twin.
#include <vector>

#include "engine/model/layer_plan.h"

namespace folio::cuda {

// The step buffers of ModelRunner a launch reads or writes (fp16, [T, width]).
enum class StepBuffer { Normed, Qkv, Attn, Proj, GateUp, Act };

struct Launch {
    enum class Op {
        Norm,         // normed = rms_norm(residual), residual += proj first when add_residual   (rms_norm.h)
        Linear,       // out = in . W^T, W the parts' rows stacked (q|k|v, gate|up)              (linear_runner.h)
        RopeWriteKv,  // q and k inside qkv rotated, k and v written to layer's KV pools        (rope_kv.h)
        Attention,    // attn = attention of qkv's q over layer's KV pools (decode and prefill) (attention.h)
        SiluMul,      // act = silu(gate) * up from gate_up                                       (activation.h)
        QkvBias,      // qkv += the q|k|v biases side by side                                   (qkv_epilogue.h)
        HeadNorm,     // every q and k head inside qkv RMS-normalised over head_dim            (qkv_epilogue.h)
    };
    Op op = Op::Norm;
    int layer = 0;  // the plan layer it comes from (RopeWriteKv, Attention: whose KV pools)
    // Norm: the weight (DeviceModel::norms[weight]) and eps; HeadNorm: eps.
    TensorRef norm;
    float eps = 0.0f;
    // QkvBias: the q, k and v biases (absent ones are zeros) and the parts' widths, uploaded side by
    // side into DeviceModel::qkv_biases[weight]; HeadNorm: the q and k weights, uploaded one after the
    // other into DeviceModel::head_norms[weight].
    std::vector<TensorRef> tensors;
    std::vector<int> widths;
    bool add_residual = false;
    // Linear: the plan's linears it stacks (DeviceModel::linears[weight]) and its buffers.
    std::vector<LinearRef> parts;
    StepBuffer in = StepBuffer::Normed, out = StepBuffer::Proj;
    int rope_table = 0;  // RopeWriteKv: DeviceModel::rope_tables[rope_table]
    float scale = 1.0f;  // Attention
    int window = 0;      // Attention (equal to the plan's kv_window: one window for every layer)
    // Norm: index into DeviceModel::norms; Linear: into DeviceModel::linears; QkvBias: into
    // DeviceModel::qkv_biases; HeadNorm: into DeviceModel::head_norms (each in launch order).
    int weight = -1;
};

struct LaunchPlan {
    std::vector<Launch> launches;     // every layer's, in order
    bool final_add_residual = false;  // the final norm adds proj to the residual first
    float final_eps = 0.0f;           // the final norm's (its weight: DeviceModel::final_norm)
    int num_norms = 0, num_linears = 0, num_qkv_biases = 0, num_head_norms = 0;
    int sampled_vocab = 0;            // logits of ids at or past this are -inf (ModelPlan::sampled_vocab)
};

// Throws folio::Error (refuse_plan, "CUDA backend: ...") for a step or option it cannot launch.
LaunchPlan plan_launches(const ModelPlan& plan);

}  // namespace folio::cuda
