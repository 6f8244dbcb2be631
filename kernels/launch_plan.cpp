#include "kernels/launch_plan.h"

#include "engine/core/error.h"

namespace folio::cuda {

namespace {

// Walks the plan's steps in order, carrying what a fusion is waiting for across steps (and layers:
// a layer's last residual add joins the next layer's first norm).
class Planner {
public:
    explicit Planner(const ModelPlan& plan) : plan_(plan) {}

    LaunchPlan run() {
        for (layer_ = 0; layer_ < int(plan_.layers.size()); ++layer_) {
            qkv_written_ = false;
            for (const LayerStep& step : plan_.layers[size_t(layer_)].steps) {
                step_ = &step;
                if (rope_pending_ && !std::holds_alternative<Attention>(step))
                    refuse("the CUDA kernels rotate q and k as they write the KV cache, so attention must follow the "
                           "rotary embedding directly");
                std::visit([&](const auto& s) { add(s); }, step);
            }
            if (rope_pending_) refuse("the layer ends after a rotary embedding; attention must follow it directly");
        }
        out_.final_add_residual = add_pending_;
        out_.final_eps = plan_.final_norm.eps;
        out_.sampled_vocab = plan_.sampled_vocab;
        return std::move(out_);
    }

private:
    [[noreturn]] void refuse(const std::string& what) { refuse_plan("CUDA backend", plan_, layer_, *step_, what); }

    Launch& emit(Launch::Op op) {
        out_.launches.push_back({});
        Launch& k = out_.launches.back();
        k.op = op;
        k.layer = layer_;
        return k;
    }
    void linear(std::vector<LinearRef> parts, StepBuffer in, StepBuffer out) {
        Launch& k = emit(Launch::Op::Linear);
        k.parts = std::move(parts);
        k.in = in;
        k.out = out;
        k.weight = out_.num_linears++;
    }
    // The pending residual add reads proj: nothing may overwrite it before the norm that applies it.
    void writes_proj() {
        if (add_pending_) refuse("a residual add must be followed by an RMS norm (the CUDA kernels apply the add inside the norm)");
    }

    void add(const RmsNorm& s) {
        Launch& k = emit(Launch::Op::Norm);
        k.norm = s.weight;
        k.eps = s.eps;
        k.add_residual = add_pending_;
        k.weight = out_.num_norms++;
        add_pending_ = false;
    }
    void add(const QkvProjection& s) {
        linear({s.q, s.k, s.v}, StepBuffer::Normed, StepBuffer::Qkv);
        qkv_written_ = true;
        if (!s.q_bias.present() && !s.k_bias.present() && !s.v_bias.present()) return;
        Launch& k = emit(Launch::Op::QkvBias);
        k.tensors = {s.q_bias, s.k_bias, s.v_bias};
        k.widths = {plan_.linear(s.q).out, plan_.linear(s.k).out, plan_.linear(s.v).out};
        k.weight = out_.num_qkv_biases++;
    }
    void add(const HeadNorm& s) {
        if (!qkv_written_) refuse("the CUDA kernels normalise the q and k heads of the layer's q/k/v projection, so it must come first");
        if (!s.q_weight.present() || !s.k_weight.present()) refuse("the CUDA kernels need both the q and the k head-norm weights");
        Launch& k = emit(Launch::Op::HeadNorm);
        k.tensors = {s.q_weight, s.k_weight};
        k.eps = s.eps;
        k.weight = out_.num_head_norms++;
    }
    void add(const Rope& s) {
        rope_pending_ = true;
        rope_table_ = s.table;
    }
    void add(const Attention& s) {
        if (!rope_pending_) refuse("attention without a rotary embedding right before it is not supported by the CUDA backend");
        if (s.window != plan_.kv_window)
            refuse("a sliding window of " + std::to_string(s.window) + " keys differs from the model's (" +
                   std::to_string(plan_.kv_window) + "); per-layer windows are not supported by the CUDA backend yet");
        emit(Launch::Op::RopeWriteKv).rope_table = rope_table_;
        Launch& a = emit(Launch::Op::Attention);
        a.scale = s.scale;
        a.window = s.window;
        rope_pending_ = false;
    }
    void add(const OutProjection& s) {
        writes_proj();
        linear({s.o}, StepBuffer::Attn, StepBuffer::Proj);
    }
    void add(const ResidualAdd&) {
        if (add_pending_) refuse("two residual adds with no RMS norm between them are not supported by the CUDA backend");
        add_pending_ = true;
    }
    void add(const GatedMlp& s) {
        writes_proj();
        if (s.act != Activation::Silu) refuse("only the SiLU-gated MLP is supported by the CUDA backend");
        linear({s.gate, s.up}, StepBuffer::Normed, StepBuffer::GateUp);
        emit(Launch::Op::SiluMul);
        linear({s.down}, StepBuffer::Act, StepBuffer::Proj);
    }

    const ModelPlan& plan_;
    LaunchPlan out_;
    int layer_ = 0;
    const LayerStep* step_ = nullptr;
    bool add_pending_ = false;
    bool rope_pending_ = false;
    bool qkv_written_ = false;  // this layer's q/k/v projection has run
    int rope_table_ = 0;
};

}  // namespace

LaunchPlan plan_launches(const ModelPlan& plan) { return Planner(plan).run(); }

}  // namespace folio::cuda
