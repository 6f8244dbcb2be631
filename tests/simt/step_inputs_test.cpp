// pack_step (host side of a CUDA step): ordering, block tables, slots, tiles, graph padding, and the
// errors a malformed batch gets; DecodeGraphs' buckets.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "kernels/decode_graphs.h"
#include "kernels/step_inputs.h"

namespace folio::cuda {
namespace {

StepCapacity capacity() {
    StepCapacity c;
    c.max_tokens = 64;
    c.max_seqs = 8;
    c.max_blocks_per_seq = 8;
    c.max_tiles = 16;
    c.max_penalty_ids = 64;
    return c;
}

SeqSlice slice(int offset, int n, int before, int table_offset, int blocks, bool logits = true) {
    SeqSlice s;
    s.token_offset = offset;
    s.num_tokens = n;
    s.context_before = before;
    s.block_table_offset = table_offset;
    s.num_blocks = blocks;
    s.want_logits = logits;
    return s;
}

const KvLayout kLayout{2, 2, 16, 16, 32};

TEST(StepInputs, DecodeSequencesComeFirstWithTheirTablesSlotsAndTiles) {
    // seq 0: a 40-token prefill chunk after 10 cached tokens (blocks 7, 3, 9, 30); seq 1: one decode
    // token at position 20 (blocks 5, 6).
    ForwardBatch b;
    for (int i = 0; i < 41; ++i) b.tokens.push_back(i + 1);
    b.block_tables = {7, 3, 9, 30, 5, 6};
    b.seqs = {slice(0, 40, 10, 0, 4, false), slice(40, 1, 20, 4, 2)};
    StepInputs in(capacity());
    PackOptions po;
    po.tile_rows = 32;
    const StepCounts c = pack_step(b, nullptr, kLayout, 100, po, in);
    EXPECT_EQ(c.num_tokens, 41);
    EXPECT_EQ(c.num_decode, 1);
    EXPECT_EQ(c.num_prefill, 1);
    EXPECT_EQ(c.num_tiles, 2);  // 40 rows in tiles of 32
    EXPECT_EQ(c.num_logit_rows, 1);
    EXPECT_EQ(c.table_width, 4);
    EXPECT_EQ(c.max_decode_len, 21);
    EXPECT_EQ(in.decode_q_rows()[0], 40);
    EXPECT_EQ(in.decode_lens()[0], 21);
    EXPECT_EQ(std::vector<int32_t>(in.block_tables(), in.block_tables() + 8), (std::vector<int32_t>{5, 6, -1, -1, 7, 3, 9, 30}));
    EXPECT_EQ(in.prefill_q_row()[0], 0);
    EXPECT_EQ(in.prefill_num_q()[0], 40);
    EXPECT_EQ(in.prefill_before()[0], 10);
    EXPECT_EQ(in.tile_q0()[1], 32);
    EXPECT_EQ(in.positions()[0], 10);
    EXPECT_EQ(in.slots()[0], 7 * 16 + 10);   // position 10: block 0 of the table, slot 10
    EXPECT_EQ(in.slots()[6], 3 * 16 + 0);    // position 16
    EXPECT_EQ(in.slots()[39], 30 * 16 + 1);  // position 49
    EXPECT_EQ(in.slots()[40], 6 * 16 + 4);   // the decode token at 20
    EXPECT_EQ(in.logit_rows()[0], 40);
}

TEST(StepInputs, GraphPaddingAddsHarmlessRows) {
    ForwardBatch b;
    b.tokens = {4, 5, 6};
    b.block_tables = {1, 2, 3};
    b.seqs = {slice(0, 1, 3, 0, 1), slice(1, 1, 0, 1, 1), slice(2, 1, 15, 2, 1)};
    SamplingParams sp;
    std::vector<SamplingRow> rows(3);
    for (auto& r : rows) r.params = &sp;
    StepInputs in(capacity());
    PackOptions po;
    po.pad_decode_to = DecodeGraphs::padded_batch(3, 8);
    po.table_width = DecodeGraphs::padded_width(1, 8);
    const StepCounts c = pack_step(b, &rows, kLayout, 100, po, in);
    EXPECT_EQ(c.num_tokens, 4);
    EXPECT_EQ(c.num_decode, 4);
    EXPECT_EQ(c.num_logit_rows, 4);
    EXPECT_EQ(c.table_width, 8);  // the capacity caps the 16-block minimum
    EXPECT_EQ(in.slots()[3], -1);         // no KV write
    EXPECT_EQ(in.decode_lens()[3], 0);    // no keys: zeros out
    EXPECT_EQ(in.logit_rows()[3], 3);
    EXPECT_LT(in.sampling()[3].temperature, 1e-5f);  // greedy: cheap
    // A prefill chunk cannot be padded into a decode graph.
    b.seqs[1] = slice(1, 2, 0, 1, 1);
    b.tokens.push_back(7);
    b.seqs[2].token_offset = 3;
    EXPECT_THROW(pack_step(b, &rows, kLayout, 100, po, in), Error);
}

TEST(StepInputs, ReleasedEntriesBeforeTheWindowPassButNoneInsideIt) {
    // A 16-token window, blocks of 16: a decode at position 60 attends keys 45..60 (blocks 2 and 3),
    // a prefill chunk at 40..47 attends from key 25 (blocks 1 and 2).
    ForwardBatch b;
    for (int i = 0; i < 9; ++i) b.tokens.push_back(i + 1);
    b.block_tables = {-1, -1, 4, 8, -1, 5, 6};
    b.seqs = {slice(0, 1, 60, 0, 4), slice(1, 8, 40, 4, 3)};
    StepInputs in(capacity());
    PackOptions po;
    po.sliding_window = 16;
    const StepCounts c = pack_step(b, nullptr, kLayout, 100, po, in);
    EXPECT_EQ(std::vector<int32_t>(in.block_tables(), in.block_tables() + 8), (std::vector<int32_t>{-1, -1, 4, 8, -1, 5, 6, -1}));
    EXPECT_EQ(in.slots()[0], 8 * 16 + 12);   // position 60
    EXPECT_EQ(in.slots()[1], 6 * 16 + 8);    // position 40
    EXPECT_EQ(c.table_width, 4);
    // Block 1 holds keys the chunk's first query (position 40, keys 25..) reads: it must be there.
    b.block_tables[5] = -1;
    EXPECT_THROW(pack_step(b, nullptr, kLayout, 100, po, in), Error);
    b.block_tables[5] = 5;
    // Without a window every entry is read.
    po.sliding_window = 0;
    EXPECT_THROW(pack_step(b, nullptr, kLayout, 100, po, in), Error);
}

TEST(StepInputs, MalformedBatchesGetClearErrors) {
    StepInputs in(capacity());
    auto expect_error = [&](const ForwardBatch& b, const std::string& words) {
        try {
            pack_step(b, nullptr, kLayout, 100, PackOptions{}, in);
            ADD_FAILURE() << "no error for: " << words;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    ForwardBatch b;
    b.tokens = {1, 2};
    b.block_tables = {0};
    b.seqs = {slice(0, 2, 0, 0, 1)};
    b.tokens[1] = 100;
    expect_error(b, "outside the vocabulary");
    b.tokens[1] = 2;
    b.block_tables = {32};
    expect_error(b, "outside the pool");
    b.block_tables = {0};
    b.seqs[0].context_before = 15;  // needs two blocks, has one
    expect_error(b, "too few blocks");
    b.seqs[0].context_before = 0;
    b.tokens.assign(65, 1);
    b.seqs[0].num_tokens = 65;
    b.seqs[0].num_blocks = 5;
    b.block_tables = {0, 1, 2, 3, 4};
    expect_error(b, "exceeds the sizes planned");
    b.tokens.assign(1, 1);
    b.seqs[0] = slice(0, 1, 200, 0, 13);
    b.block_tables.assign(13, 0);
    expect_error(b, "more than the 8");
}

TEST(StepInputs, CapacityHoldsTheLargestStepsOf2048And8192Tokens) {
    // Llama-2-7B limits (4096-token context, 256 sequences, 64-row prefill tiles), a pool of 65536 blocks.
    const KvLayout layout{32, 32, 128, 16, 65536};
    for (const int T : {2048, 8192}) {
        SCOPED_TRACE(T);
        const StepCapacity cap = step_capacity(T, 256, 4096, 16, 64, 32000);
        EXPECT_EQ(cap.max_blocks_per_seq, 256);
        EXPECT_EQ(cap.max_penalty_ids, 256 * 4096);
        StepInputs in(cap);
        auto pack = [&](const std::vector<std::pair<int, int>>& seqs, const PackOptions& po) {  // (before, tokens) each
            ForwardBatch b;
            int block = 0;
            for (const auto& [before, n] : seqs) {
                const int blocks = (before + n + 15) / 16;
                b.seqs.push_back(slice(b.num_tokens(), n, before, int(b.block_tables.size()), blocks));
                for (int i = 0; i < n; ++i) b.tokens.push_back(1);
                for (int i = 0; i < blocks; ++i) b.block_tables.push_back(block++ % 65536);
            }
            return pack_step(b, nullptr, layout, 32000, po, in);
        };
        PackOptions po;
        po.tile_rows = 64;
        // The whole budget in prefill chunks that end at the context's last position.
        StepCounts c = T <= 4096 ? pack({{4096 - T, T}}, po) : pack(std::vector<std::pair<int, int>>(size_t(T / 4096), {0, 4096}), po);
        EXPECT_EQ(c.num_tokens, T);
        EXPECT_EQ(c.num_tiles, T / 64);
        // 256 sequences: decodes at the end of the context beside one or two prefill chunks.
        const int chunks = T > 4096 ? 2 : 1, decodes = 256 - chunks;
        std::vector<std::pair<int, int>> mixed(size_t(decodes), {4095, 1});
        for (int i = 0; i < chunks; ++i) mixed.push_back({0, (T - decodes) / chunks});
        c = pack(mixed, po);
        EXPECT_EQ(c.num_decode, decodes);
        EXPECT_EQ(c.num_tokens, T);
        EXPECT_EQ(c.table_width, 256);
        // The most tiles: 256 chunks of 65 tokens (or as many as fit), two tiles each.
        std::vector<std::pair<int, int>> ragged(size_t(std::min(256, T / 65)), {0, 65});
        c = pack(ragged, po);
        EXPECT_EQ(c.num_tiles, 2 * int(ragged.size()));
        // A decode graph of 200 sequences padded to its 224 bucket.
        PackOptions graph = po;
        graph.pad_decode_to = DecodeGraphs::padded_batch(200, 256);
        graph.table_width = DecodeGraphs::padded_width(3, cap.max_blocks_per_seq);
        c = pack(std::vector<std::pair<int, int>>(200, {40, 1}), graph);
        EXPECT_EQ(c.num_decode, 224);
        EXPECT_EQ(c.table_width, 16);
        // One token more than planned is refused.
        EXPECT_THROW(pack({{0, T + 1}}, po), Error);
    }
}

TEST(StepInputs, PenaltyIdBoundCountsWhatPackStepWouldList) {
    SamplingParams none, rep, freq, both;
    rep.repetition_penalty = 1.2f;
    freq.frequency_penalty = 0.5f;
    both.repetition_penalty = 1.1f;
    both.presence_penalty = 0.3f;
    const std::vector<int32_t> prompt(30, 4), output(12, 5);
    auto row = [&](const SamplingParams* p) {
        SamplingRow r;
        r.params = p;
        r.prompt_ids = prompt.data();
        r.num_prompt_ids = 30;
        r.output_ids = output.data();
        r.num_output_ids = 12;
        return r;
    };
    EXPECT_EQ(penalty_ids_bound({row(&none)}), 0);
    EXPECT_EQ(penalty_ids_bound({row(&rep)}), 42);
    EXPECT_EQ(penalty_ids_bound({row(&freq)}), 12);
    EXPECT_EQ(penalty_ids_bound({row(&both), row(&rep), row(&none)}), 54 + 42);
    // With more ids than the buffer holds pack_step refuses the step (the backend samples such a
    // step on the host instead, CudaBackend.StepsWithMorePenalisedIdsThanTheBufferSampleOnTheHost).
    StepCapacity small = capacity();
    small.max_penalty_ids = 1;
    StepInputs in(small);
    std::vector<int32_t> distinct{7, 8, 9};
    SamplingRow r = row(&rep);
    r.prompt_ids = distinct.data();
    r.num_prompt_ids = 3;
    r.num_output_ids = 0;
    ForwardBatch b;
    b.tokens = {1};
    b.block_tables = {0};
    b.seqs = {slice(0, 1, 0, 0, 1)};
    const std::vector<SamplingRow> rows{r};
    EXPECT_GT(penalty_ids_bound(rows), small.max_penalty_ids);
    EXPECT_THROW(pack_step(b, &rows, kLayout, 100, PackOptions{}, in), Error);
}

TEST(DecodeGraphs, BucketsBatchesAndWidths) {
    const std::pair<int, int> batches[] = {{1, 1}, {2, 2}, {3, 4}, {5, 8}, {9, 16}, {16, 16}, {17, 24}, {63, 64}, {65, 96}, {200, 224}};
    for (const auto& [n, want] : batches) EXPECT_EQ(DecodeGraphs::padded_batch(n, 256), want) << n;
    EXPECT_EQ(DecodeGraphs::padded_batch(200, 128), 128);
    EXPECT_EQ(DecodeGraphs::padded_width(1, 512), 16);
    EXPECT_EQ(DecodeGraphs::padded_width(17, 512), 32);
    EXPECT_EQ(DecodeGraphs::padded_width(300, 512), 512);
    EXPECT_EQ(DecodeGraphs::padded_width(600, 512), 512);
}

}  // namespace
}  // namespace folio::cuda
