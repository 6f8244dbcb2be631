#pragma once
// Everything a step needs besides weights and KV: token ids, positions, KV slots, the attention work
// lists, the rows that want logits, sampling settings and block tables. The host packs it into one
// pinned buffer laid out at fixed offsets and it goes up in at most three copies, so a captured
// CUDA graph finds each field at the same device address on every replay.
#include <cstdint>
#include <vector>

#include "engine/backend/backend.h"
#include "kernels/common/cuda_compat.h"
#include "kernels/device_buffer.h"
#include "kernels/sampling.h"

namespace folio::cuda {

struct StepCapacity {
    int max_tokens = 0;
    int max_seqs = 0;
    int max_blocks_per_seq = 0;
    int max_tiles = 0;
    int max_penalty_ids = 0;
};

// The capacity for steps of up to max_tokens tokens in max_seqs sequences over contexts of up to
// max_context tokens: enough for any batch the scheduler can build within those limits, except that
// penalised token ids are capped (kMaxPenaltyIds); a step with more samples on the host instead.
constexpr int kMaxPenaltyIds = 1 << 22;
StepCapacity step_capacity(int max_tokens, int max_seqs, int max_context, int block_size, int tile_rows, int vocab);

// An upper bound of the penalised ids pack_step would list for `rows` (ids are counted, not deduplicated).
int64_t penalty_ids_bound(const std::vector<SamplingRow>& rows);

// What one step holds, set by pack_step.
struct StepCounts {
    int num_tokens = 0;
    int num_decode = 0;       // sequences with one query token: decode attention
    int num_prefill = 0;      // the others: prefill attention, tiled
    int num_tiles = 0;
    int num_logit_rows = 0;
    int table_width = 0;      // block-table row stride of this step
    int max_decode_len = 0;   // longest decode context
    int num_penalty_ids = 0;
};

class StepInputs {
public:
    explicit StepInputs(const StepCapacity& capacity);

    const StepCapacity& capacity() const { return cap_; }

    // Host side, to fill.
    int32_t* tokens() const { return h<int32_t>(tokens_); }
    int32_t* positions() const { return h<int32_t>(positions_); }
    int32_t* slots() const { return h<int32_t>(slots_); }
    int32_t* decode_q_rows() const { return h<int32_t>(decode_q_rows_); }
    int32_t* decode_lens() const { return h<int32_t>(decode_lens_); }
    int32_t* prefill_q_row() const { return h<int32_t>(prefill_q_row_); }
    int32_t* prefill_num_q() const { return h<int32_t>(prefill_num_q_); }
    int32_t* prefill_before() const { return h<int32_t>(prefill_before_); }
    int32_t* tile_seq() const { return h<int32_t>(tile_seq_); }
    int32_t* tile_q0() const { return h<int32_t>(tile_q0_); }
    int32_t* logit_rows() const { return h<int32_t>(logit_rows_); }
    DeviceSamplingParams* sampling() const { return h<DeviceSamplingParams>(sampling_); }
    int32_t* penalty_ids() const { return h<int32_t>(penalty_ids_); }
    int32_t* penalty_counts() const { return h<int32_t>(penalty_counts_); }
    int32_t* block_tables() const { return h<int32_t>(tables_); }

    // Device side, for kernels (stable addresses).
    const int32_t* d_tokens() const { return d<int32_t>(tokens_); }
    const int32_t* d_positions() const { return d<int32_t>(positions_); }
    const int32_t* d_slots() const { return d<int32_t>(slots_); }
    const int32_t* d_decode_q_rows() const { return d<int32_t>(decode_q_rows_); }
    const int32_t* d_decode_lens() const { return d<int32_t>(decode_lens_); }
    const int32_t* d_prefill_q_row() const { return d<int32_t>(prefill_q_row_); }
    const int32_t* d_prefill_num_q() const { return d<int32_t>(prefill_num_q_); }
    const int32_t* d_prefill_before() const { return d<int32_t>(prefill_before_); }
    const int32_t* d_tile_seq() const { return d<int32_t>(tile_seq_); }
    const int32_t* d_tile_q0() const { return d<int32_t>(tile_q0_); }
    const int32_t* d_logit_rows() const { return d<int32_t>(logit_rows_); }
    const DeviceSamplingParams* d_sampling() const { return d<DeviceSamplingParams>(sampling_); }
    const int32_t* d_penalty_ids() const { return d<int32_t>(penalty_ids_); }
    const int32_t* d_penalty_counts() const { return d<int32_t>(penalty_counts_); }
    const int32_t* d_block_tables() const { return d<int32_t>(tables_); }

    // Copies the parts `counts` uses to the device (enqueued on `stream`).
    void upload(const StepCounts& counts, cudaStream_t stream) const;
    size_t device_bytes() const { return dev_.bytes(); }

private:
    struct Region {
        size_t offset = 0, bytes = 0;
    };
    template <class T>
    T* h(const Region& r) const { return reinterpret_cast<T*>(host_.get() + r.offset); }
    template <class T>
    T* d(const Region& r) const { return reinterpret_cast<T*>(dev_.get() + r.offset); }

    StepCapacity cap_;
    Region tokens_, positions_, slots_, decode_q_rows_, decode_lens_, prefill_q_row_, prefill_num_q_, prefill_before_,
        tile_seq_, tile_q0_, logit_rows_, sampling_, fixed_end_, penalty_ids_, penalty_counts_, tables_;
    PinnedBuffer<unsigned char> host_;
    DeviceBuffer<unsigned char> dev_;
};

struct PackOptions {
    int tile_rows = 32;      // prefill_tile_rows(head_dim)
    int pad_decode_to = 0;   // CUDA graphs: pad a decode-only batch to this many rows
    int table_width = 0;     // CUDA graphs: at least this block-table stride
    int sliding_window = 0;  // the model's window: table entries before it may be released (-1)
};

// Fills `in` for a batch (and, when `rows` is given, its sampling rows). Validates the batch against
// the pool and vocabulary and throws folio::Error when something is out of range or the batch is
// larger than the capacity.
StepCounts pack_step(const ForwardBatch& batch, const std::vector<SamplingRow>* rows, const KvLayout& layout, int vocab,
                     const PackOptions& options, StepInputs& in);

}  // namespace folio::cuda
