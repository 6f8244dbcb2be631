#pragma once
// Sliding-window references for the CUDA kernels (Mistral v0.1's `sliding_window`), kept here because
// the CPU backend's own reference (engine/cpu/ops.h) has no window parameter yet. Semantics as
// transformers masks it: the query at position p attends to positions max(0, p - window + 1) .. p;
// window 0 attends to every earlier position (then both functions equal the CPU reference).
#include <cstdint>
#include <vector>

#include "engine/kv/kv_layout.h"

namespace folio {
struct Model;
}

namespace folio::test {

// cpu::paged_attention with a window, accumulated in double: query row t of q ([num_tokens,
// num_heads, head_dim]) sits at position context_before + t; out has q's shape.
void windowed_paged_attention(const float* q, float* out, int num_tokens, int context_before, int num_heads,
                              const KvLayout& layout, const float* k_pool, const float* v_pool, const int32_t* block_table,
                              float scale, int window);

// The whole model in fp32 over `tokens` (one sequence from position 0), attention windowed:
// logits of every position, [tokens.size(), vocab]. Built from engine/cpu/ops.h's pieces.
std::vector<float> windowed_reference_logits(const Model& model, const std::vector<int>& tokens, int window);

}  // namespace folio::test
