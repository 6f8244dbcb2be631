#include "kernels/step_inputs.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "engine/kv/kv_layout.h"
#include "engine/sampling/sampling_params.h"

namespace folio::cuda {

StepCapacity step_capacity(int max_tokens, int max_seqs, int max_context, int block_size, int tile_rows, int vocab) {
    StepCapacity cap;
    cap.max_tokens = max_tokens;
    cap.max_seqs = max_seqs;
    cap.max_blocks_per_seq = (max_context + block_size - 1) / block_size;
    // Each prefill sequence's last tile may be partial: at most one extra tile per sequence.
    cap.max_tiles = max_tokens / tile_rows + max_seqs;
    // Distinct ids per row are bounded by the vocabulary and by the context.
    cap.max_penalty_ids = int(std::min<int64_t>(int64_t(max_seqs) * std::min(vocab, max_context), kMaxPenaltyIds));
    return cap;
}

namespace {

bool repetition_on(const SamplingParams& p) { return p.repetition_penalty != 1.0f && p.repetition_penalty > 0.0f && std::isfinite(p.repetition_penalty); }
bool presence_or_frequency_on(const SamplingParams& p) { return p.presence_penalty != 0.0f || p.frequency_penalty != 0.0f; }

}  // namespace

int64_t penalty_ids_bound(const std::vector<SamplingRow>& rows) {
    int64_t n = 0;
    for (const SamplingRow& r : rows) {
        if (!r.params) continue;
        if (repetition_on(*r.params)) n += int64_t(r.prompt_ids ? r.num_prompt_ids : 0) + (r.output_ids ? r.num_output_ids : 0);
        if (presence_or_frequency_on(*r.params) && r.output_ids) n += r.num_output_ids;
    }
    return n;
}

StepInputs::StepInputs(const StepCapacity& c) : cap_(c) {
    size_t off = 0;
    auto region = [&](size_t count, size_t elem) {
        Region r{off, count * elem};
        off = (off + r.bytes + 255) / 256 * 256;  // each field on its own 256-byte boundary
        return r;
    };
    const size_t T = size_t(c.max_tokens), S = size_t(c.max_seqs);
    tokens_ = region(T, 4);
    positions_ = region(T, 4);
    slots_ = region(T, 4);
    decode_q_rows_ = region(S, 4);
    decode_lens_ = region(S, 4);
    prefill_q_row_ = region(S, 4);
    prefill_num_q_ = region(S, 4);
    prefill_before_ = region(S, 4);
    tile_seq_ = region(size_t(c.max_tiles), 4);
    tile_q0_ = region(size_t(c.max_tiles), 4);
    logit_rows_ = region(S, 4);
    sampling_ = region(S, sizeof(DeviceSamplingParams));
    fixed_end_ = Region{off, 0};
    penalty_ids_ = region(size_t(c.max_penalty_ids), 4);
    penalty_counts_ = region(size_t(c.max_penalty_ids), 4);
    tables_ = region(S * size_t(c.max_blocks_per_seq), 4);
    host_ = PinnedBuffer<unsigned char>(off);
    dev_ = DeviceBuffer<unsigned char>(off, "step inputs");
    std::fill(host_.get(), host_.get() + off, 0);
    check(cudaMemset(dev_.get(), 0, off), "cudaMemset");
}

void StepInputs::upload(const StepCounts& c, cudaStream_t stream) const {
    check(cudaMemcpyAsync(dev_.get(), host_.get(), fixed_end_.offset, cudaMemcpyHostToDevice, stream), "step upload");
    if (c.num_penalty_ids > 0) {
        const size_t n = size_t(c.num_penalty_ids) * 4;
        check(cudaMemcpyAsync(dev_.get() + penalty_ids_.offset, host_.get() + penalty_ids_.offset, n, cudaMemcpyHostToDevice, stream),
              "step upload");
        check(cudaMemcpyAsync(dev_.get() + penalty_counts_.offset, host_.get() + penalty_counts_.offset, n,
                              cudaMemcpyHostToDevice, stream),
              "step upload");
    }
    const size_t table_bytes = size_t(c.num_decode + c.num_prefill) * size_t(c.table_width) * 4;
    if (table_bytes > 0)
        check(cudaMemcpyAsync(dev_.get() + tables_.offset, host_.get() + tables_.offset, table_bytes, cudaMemcpyHostToDevice, stream),
              "step upload");
}

namespace {

[[noreturn]] void bad_batch(const std::string& what) { throw Error("CUDA backend: malformed batch: " + what); }

// Distinct penalty ids of each row, appended to the step's id list.
class PenaltyLists {
public:
    PenaltyLists(StepInputs& in, int vocab) : in_(in), vocab_(vocab), seen_(size_t(vocab), 0), counts_(size_t(vocab), 0) {}

    void add_row(const SamplingRow& row, DeviceSamplingParams& p) {
        const SamplingParams& sp = *row.params;
        p.rep_begin = p.rep_end = p.pf_begin = p.pf_end = n_;
        if (repetition_on(sp)) {
            ++epoch_;
            auto add = [&](const int32_t* ids, int count) {
                for (int i = 0; i < count; ++i) {
                    const int32_t id = ids[i];
                    if (id < 0 || id >= vocab_ || seen_[size_t(id)] == epoch_) continue;
                    seen_[size_t(id)] = epoch_;
                    push(id, 0);
                }
            };
            if (row.prompt_ids) add(row.prompt_ids, row.num_prompt_ids);
            if (row.output_ids) add(row.output_ids, row.num_output_ids);
        }
        p.rep_end = p.pf_begin = n_;
        if (presence_or_frequency_on(sp) && row.output_ids) {
            for (int i = 0; i < row.num_output_ids; ++i) {
                const int32_t id = row.output_ids[i];
                if (id >= 0 && id < vocab_) ++counts_[size_t(id)];
            }
            for (int i = 0; i < row.num_output_ids; ++i) {
                const int32_t id = row.output_ids[i];
                if (id < 0 || id >= vocab_ || counts_[size_t(id)] == 0) continue;
                push(id, counts_[size_t(id)]);
                counts_[size_t(id)] = 0;  // once per distinct id; leaves the scratch zeroed
            }
        }
        p.pf_end = n_;
    }
    int size() const { return n_; }

private:
    void push(int32_t id, int32_t count) {
        if (n_ >= in_.capacity().max_penalty_ids)
            throw Error("CUDA backend: more than " + std::to_string(in_.capacity().max_penalty_ids) +
                        " penalised token ids in one step");
        in_.penalty_ids()[n_] = id;
        in_.penalty_counts()[n_] = count;
        ++n_;
    }
    StepInputs& in_;
    int vocab_;
    std::vector<uint32_t> seen_;
    uint32_t epoch_ = 0;
    std::vector<int32_t> counts_;
    int n_ = 0;
};

}  // namespace

StepCounts pack_step(const ForwardBatch& batch, const std::vector<SamplingRow>* rows, const KvLayout& layout, int vocab,
                     const PackOptions& options, StepInputs& in) {
    const StepCapacity& cap = in.capacity();
    StepCounts c;
    const int T = batch.num_tokens();
    const int S = int(batch.seqs.size());
    const int padded = std::max(S, options.pad_decode_to);
    if (T + (padded - S) > cap.max_tokens || padded > cap.max_seqs)
        throw Error("CUDA backend: a step of " + std::to_string(T) + " tokens in " + std::to_string(S) +
                    " sequences exceeds the sizes planned at start (" + std::to_string(cap.max_tokens) + " tokens, " +
                    std::to_string(cap.max_seqs) + " sequences); raise max_num_batched_tokens / max_num_seqs in the backend options");
    if (padded > S)
        for (const auto& s : batch.seqs)
            if (s.num_tokens != 1 || !s.want_logits) bad_batch("only decode batches can be padded for a CUDA graph");
    const int bs = layout.block_size;
    int width = options.table_width;
    for (const auto& s : batch.seqs) width = std::max(width, (s.context_before + s.num_tokens + bs - 1) / bs);
    if (width > cap.max_blocks_per_seq)
        throw Error("CUDA backend: a sequence needs " + std::to_string(width) + " KV blocks, more than the " +
                    std::to_string(cap.max_blocks_per_seq) + " of the model's context length");
    c.table_width = width;
    c.num_tokens = T + (padded - S);

    for (int t = 0; t < T; ++t) {
        const int32_t id = batch.tokens[size_t(t)];
        if (id < 0 || id >= vocab) bad_batch("token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocab));
        in.tokens()[t] = id;
    }
    // Decode sequences first in the block tables, then the prefill ones.
    std::vector<int> order;
    for (int j = 0; j < S; ++j)
        if (batch.seqs[size_t(j)].num_tokens == 1) order.push_back(j);
    c.num_decode = int(order.size());
    for (int j = 0; j < S; ++j)
        if (batch.seqs[size_t(j)].num_tokens != 1) order.push_back(j);
    int tile_count = 0;
    for (int i = 0; i < S; ++i) {
        const SeqSlice& s = batch.seqs[size_t(order[size_t(i)])];
        const int len = s.context_before + s.num_tokens;
        const int needed = (len + bs - 1) / bs;
        if (s.num_tokens <= 0 || s.context_before < 0 || s.token_offset < 0 || s.token_offset + s.num_tokens > T ||
            s.num_blocks < needed || s.block_table_offset < 0 ||
            s.block_table_offset + needed > int(batch.block_tables.size()))
            bad_batch("sequence " + std::to_string(s.seq_id) + " has inconsistent offsets or too few blocks");
        int32_t* table = in.block_tables() + size_t(i) * width;
        // The first block any query of this step can attend: the kernels start their keys at the
        // window of the first query, so entries before it (released blocks, -1) are never read.
        const int live = first_live_block(s.context_before, options.sliding_window, bs);
        for (int b = 0; b < width; ++b) {
            if (b >= needed) {
                table[b] = -1;  // never read: a stray read faults instead of reading another sequence
                continue;
            }
            const int32_t blk = batch.block_tables[size_t(s.block_table_offset + b)];
            if (b < live && blk == kReleasedBlock) {
                table[b] = kReleasedBlock;
                continue;
            }
            if (blk < 0 || blk >= layout.num_blocks)
                bad_batch("block " + std::to_string(blk) + " of sequence " + std::to_string(s.seq_id) + " is outside the pool of " +
                          std::to_string(layout.num_blocks));
            table[b] = blk;
        }
        for (int k = 0; k < s.num_tokens; ++k) {
            const int t = s.token_offset + k;
            const int pos = s.context_before + k;
            in.positions()[t] = pos;
            in.slots()[t] = batch.block_tables[size_t(s.block_table_offset + pos / bs)] * bs + pos % bs;
        }
        if (i < c.num_decode) {
            in.decode_q_rows()[i] = s.token_offset;
            in.decode_lens()[i] = len;
            c.max_decode_len = std::max(c.max_decode_len, len);
        } else {
            const int p = i - c.num_decode;
            in.prefill_q_row()[p] = s.token_offset;
            in.prefill_num_q()[p] = s.num_tokens;
            in.prefill_before()[p] = s.context_before;
            for (int q0 = 0; q0 < s.num_tokens; q0 += options.tile_rows) {
                if (tile_count >= cap.max_tiles) throw Error("CUDA backend: too many prefill tiles in one step");
                in.tile_seq()[tile_count] = p;
                in.tile_q0()[tile_count] = q0;
                ++tile_count;
            }
        }
    }
    c.num_prefill = S - c.num_decode;
    c.num_tiles = tile_count;
    for (const auto& s : batch.seqs)
        if (s.want_logits) in.logit_rows()[c.num_logit_rows++] = s.token_offset + s.num_tokens - 1;

    // Padding rows of a captured decode batch: token 0 at position 0, no KV write, zero context.
    for (int i = S; i < padded; ++i) {
        const int t = T + (i - S);
        in.tokens()[t] = 0;
        in.positions()[t] = 0;
        in.slots()[t] = -1;
        in.decode_q_rows()[c.num_decode] = t;
        in.decode_lens()[c.num_decode] = 0;
        std::fill_n(in.block_tables() + size_t(c.num_decode) * width, width, -1);
        c.num_decode++;
        in.logit_rows()[c.num_logit_rows++] = t;
    }

    if (rows) {
        if (int(rows->size()) != batch.num_logit_rows())
            bad_batch(std::to_string(rows->size()) + " sampling rows for " + std::to_string(batch.num_logit_rows()) + " logit rows");
        bool any_penalty = false;
        for (const auto& row : *rows)
            if (row.params && (row.params->repetition_penalty != 1.0f || row.params->presence_penalty != 0.0f ||
                               row.params->frequency_penalty != 0.0f))
                any_penalty = true;
        std::optional<PenaltyLists> penalties;
        if (any_penalty) penalties.emplace(in, vocab);
        for (size_t r = 0; r < rows->size(); ++r) {
            const SamplingRow& row = (*rows)[r];
            if (!row.params) bad_batch("a sampling row without parameters");
            DeviceSamplingParams& p = in.sampling()[r];
            p = DeviceSamplingParams{};
            p.temperature = row.params->temperature;
            p.top_p = row.params->top_p;
            p.min_p = row.params->min_p;
            p.repetition = row.params->repetition_penalty;
            p.presence = row.params->presence_penalty;
            p.frequency = row.params->frequency_penalty;
            p.top_k = row.params->top_k;
            p.seed = row.seed;
            p.step = row.step;
            if (penalties) penalties->add_row(row, p);
        }
        for (int r = int(rows->size()); r < c.num_logit_rows; ++r) in.sampling()[r] = DeviceSamplingParams{0.0f};
        c.num_penalty_ids = penalties ? penalties->size() : 0;
    }
    return c;
}

}  // namespace folio::cuda
