// Paged decode and prefill attention against cpu::paged_attention, over random block tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "engine/cpu/ops.h"
#include "kernels/attention.h"
#include "kernels/model_runner.h"
#include "support/simt_test_util.h"
#include "support/window_reference.h"

namespace folio::cuda {
namespace {

using test::DeviceArray;

// A pool with random fp16-representable contents and one block table per sequence, blocks drawn
// from a shuffled pool so tables are permutations, not ranges.
struct PagedFixture {
    KvLayout layout;
    std::vector<float> k, v;                 // host copies (fp32 of the fp16 values)
    std::vector<std::vector<int32_t>> tables;
    int max_blocks = 0;
    DeviceArray<__half> dk, dv;
    DeviceArray<int32_t> dtables;

    PagedFixture(int kv_heads, int head_dim, int block_size, const std::vector<int>& seq_lens, uint64_t seed) {
        layout.num_layers = 1;
        layout.num_kv_heads = kv_heads;
        layout.head_dim = head_dim;
        layout.block_size = block_size;
        int needed = 0;
        for (int len : seq_lens) {
            const int b = (len + block_size - 1) / block_size;
            needed += b;
            max_blocks = std::max(max_blocks, b);
        }
        max_blocks = std::max(max_blocks, 1);
        layout.num_blocks = needed + 3;
        const size_t elems = size_t(layout.num_blocks * layout.block_elems());
        k = test::round_to_half(test::random_floats(elems, -1.5f, 1.5f, seed));
        v = test::round_to_half(test::random_floats(elems, -1.5f, 1.5f, seed + 1));
        std::vector<int32_t> ids(size_t(layout.num_blocks));
        std::iota(ids.begin(), ids.end(), 0);
        std::shuffle(ids.begin(), ids.end(), std::mt19937_64(seed + 2));
        size_t next = 0;
        std::vector<int32_t> flat;
        for (int len : seq_lens) {
            std::vector<int32_t> t;
            for (int b = 0; b < (len + block_size - 1) / block_size; ++b) t.push_back(ids[next++]);
            tables.push_back(t);
            t.resize(size_t(max_blocks), -1);  // unused entries are never read
            flat.insert(flat.end(), t.begin(), t.end());
        }
        dk = DeviceArray<__half>(test::to_half(k));
        dv = DeviceArray<__half>(test::to_half(v));
        dtables = DeviceArray<int32_t>(flat);
    }

    // Sets K and V of sequence `seq`'s positions before `pos` to NaN: a kernel that reads any of them
    // (even with a zero weight) turns its output NaN.
    void poison_before(size_t seq, int pos) {
        for (int p = 0; p < pos; ++p) {
            const int64_t off = layout.offset(tables[seq][size_t(p / layout.block_size)], 0, p % layout.block_size);
            for (int h = 0; h < layout.num_kv_heads; ++h)
                for (int d = 0; d < layout.head_dim; ++d) {
                    const size_t i = size_t(off + int64_t(h) * layout.block_size * layout.head_dim + d);
                    k[i] = v[i] = NAN;
                }
        }
        dk.upload(test::to_half(k));
        dv.upload(test::to_half(v));
    }

    PagedKv view() const {
        PagedKv p;
        p.k_pool = dk.get();
        p.v_pool = dv.get();
        p.num_kv_heads = layout.num_kv_heads;
        p.head_dim = layout.head_dim;
        p.block_size = layout.block_size;
        p.block_tables = dtables.get();
        p.max_blocks_per_seq = max_blocks;
        return p;
    }
};

struct DecodeCase {
    int heads, kv_heads, head_dim, block_size, partition;
    std::vector<int> lens;  // 0: a padding row
};

// One decode_attention launch over `f`: the query of sequence s at row rows[s] of `q` (rows of
// q_stride), its output at the same row of an out_rows x q_width output.
struct DecodeLaunch {
    int q_stride = 0, q_width = 0, out_rows = 0, heads = 0;
    float scale = 1.0f;
    int window = 0, partition = 512;
    int max_partitions = 1;  // sizes the grid and the workspace
};

// Runs decode_attention once (output and workspace poisoned first) and returns the output as fp32.
std::vector<float> run_decode(const std::vector<float>& q, const std::vector<int32_t>& rows, const std::vector<int>& lens,
                              const DecodeLaunch& l, const PagedFixture& f) {
    DeviceArray<__half> dq(test::to_half(q)), dout(size_t(l.out_rows) * l.q_width);
    DeviceArray<int32_t> drows(rows), dlens(lens);
    DeviceArray<float> work(decode_attention_workspace_floats(int(rows.size()), l.heads, f.layout.head_dim, l.max_partitions));
    dout.poison();
    work.poison();
    DecodeAttention a;
    a.q = dq.get();
    a.q_stride = l.q_stride;
    a.out = dout.get();
    a.out_stride = l.q_width;
    a.q_rows = drows.get();
    a.seq_lens = dlens.get();
    a.num_seqs = int(rows.size());
    a.num_heads = l.heads;
    a.scale = l.scale;
    a.window = l.window;
    a.partition_size = l.partition;
    a.max_partitions = l.max_partitions;
    a.workspace = work.get();
    decode_attention(a, f.view(), nullptr);
    return test::from_half(dout.download());
}

// Runs decode_attention under every schedule the harness knows and compares the query rows with
// `expect`; rows that hold no query must stay untouched (poison).
void check_decode(const std::vector<float>& q, const std::vector<int32_t>& rows, const std::vector<int>& lens,
                  const DecodeLaunch& l, const PagedFixture& f, const std::vector<float>& expect) {
    test::for_each_schedule([&](const char*) {
        const auto got = run_decode(q, rows, lens, l, f);
        std::vector<float> g, e;
        for (const int32_t row : rows) {
            const size_t r = size_t(row) * l.q_width;
            g.insert(g.end(), got.begin() + ptrdiff_t(r), got.begin() + ptrdiff_t(r + size_t(l.q_width)));
            e.insert(e.end(), expect.begin() + ptrdiff_t(r), expect.begin() + ptrdiff_t(r + size_t(l.q_width)));
        }
        EXPECT_TRUE(test::all_close(g, e, 2e-3f, 5e-3f));
        for (int r = 0; r < l.out_rows; ++r) {
            if (std::find(rows.begin(), rows.end(), r) == rows.end()) {
                EXPECT_TRUE(std::isnan(got[size_t(r) * l.q_width])) << "row " << r;
            }
        }
    });
}

TEST(SimtDecodeAttention, MatchesCpuReferenceAcrossGqaPartitionsAndBlockTables) {
    const DecodeCase cases[] = {
        {8, 8, 16, 16, 512, {1, 15, 16, 17, 40}},          // GQA 1, block boundaries
        {8, 4, 8, 16, 32, {100, 33, 0, 7}},                  // GQA 2, several partitions, a padding row
        {8, 2, 64, 16, 48, {130, 1, 49}},                    // GQA 4, partition not a block multiple
        {16, 2, 128, 16, 64, {200, 64, 65}},                 // GQA 8
        {32, 2, 32, 8, 40, {90, 3}},                         // GQA 16: two head chunks per KV head
        {4, 1, 80, 16, 512, {37}},                           // head_dim 80
        {4, 2, 256, 16, 128, {150, 20}},                     // head_dim 256, two partitions
    };
    uint64_t seed = 1;
    for (const auto& c : cases) {
        SCOPED_TRACE("heads " + std::to_string(c.heads) + "/" + std::to_string(c.kv_heads) + " dim " +
                     std::to_string(c.head_dim) + " partition " + std::to_string(c.partition));
        PagedFixture f(c.kv_heads, c.head_dim, c.block_size, c.lens, seed);
        seed += 10;
        const int S = int(c.lens.size());
        const int q_width = c.heads * c.head_dim;
        const int q_stride = q_width + 2 * c.kv_heads * c.head_dim;  // rows of a fused QKV buffer
        const auto q = test::round_to_half(test::random_floats(size_t(S + 2) * q_stride, -1.5f, 1.5f, seed++));
        std::vector<int32_t> rows(static_cast<size_t>(S));
        for (int s = 0; s < S; ++s) rows[size_t(s)] = S + 1 - s;  // queries at scattered rows of the batch
        const float scale = 1.0f / std::sqrt(float(c.head_dim));
        std::vector<float> expect(size_t(S + 2) * q_width, NAN);
        for (int s = 0; s < S; ++s) {
            const int len = c.lens[size_t(s)];
            float* o = &expect[size_t(rows[size_t(s)]) * q_width];
            if (len == 0) {
                std::fill(o, o + q_width, 0.0f);
                continue;
            }
            cpu::paged_attention(&q[size_t(rows[size_t(s)]) * q_stride], o, 1, len - 1, c.heads, f.layout, f.k.data(),
                                 f.v.data(), f.tables[size_t(s)].data(), scale);
        }
        int max_parts = 1;
        for (int len : c.lens) max_parts = std::max(max_parts, (len + c.partition - 1) / c.partition);
        // The grid may be larger than needed (CUDA graphs size it for the longest context).
        check_decode(q, rows, c.lens,
                     {.q_stride = q_stride, .q_width = q_width, .out_rows = S + 2, .heads = c.heads, .scale = scale,
                      .partition = c.partition, .max_partitions = max_parts + 1},
                     f, expect);
    }
}

TEST(SimtDecodeAttention, LongContextsSplitIntoManyPartitions) {
    // Llama-2's 4096 and Mistral's 32768-token contexts at the default 512-key partitions (8 and 64
    // thread blocks per head group, merged by the second kernel), GQA 4, head_dim 128; and the same
    // 32768 keys under Mistral v0.1's 4096-token window (8 partitions).
    PagedFixture f(1, 128, 16, {4096, 32768}, 40);
    const int heads = 4, S = 2, q_width = heads * 128;
    const auto q = test::round_to_half(test::random_floats(size_t(S) * q_width, -1.5f, 1.5f, 41));
    const float scale = 1.0f / std::sqrt(128.0f);
    // Keys aligned with head 0's query in the first, a middle and the last partition dominate its
    // softmax: a partition lost or merged wrongly moves the output by far more than rounding.
    for (int s = 0; s < S; ++s) {
        const int len = s ? 32768 : 4096;
        for (const int p : {5, len / 2 + 3, len - 2}) {
            const int64_t off = f.layout.offset(f.tables[size_t(s)][size_t(p / 16)], 0, p % 16);
            for (int d = 0; d < 128; ++d) f.k[size_t(off + d)] = q[size_t(s) * q_width + size_t(d)] > 0 ? 1.0f : -1.0f;
        }
    }
    f.dk.upload(test::to_half(f.k));
    for (const int window : {0, 4096}) {
        SCOPED_TRACE("window " + std::to_string(window));
        std::vector<float> expect(q.size());
        for (int s = 0; s < S; ++s)
            test::windowed_paged_attention(&q[size_t(s) * q_width], &expect[size_t(s) * q_width], 1, (s ? 32768 : 4096) - 1, heads,
                                           f.layout, f.k.data(), f.v.data(), f.tables[size_t(s)].data(), scale, window);
        const int parts = decode_attention_partitions(32768, 512, window);
        EXPECT_EQ(parts, window ? 8 : 64);
        const auto got = run_decode(q, {0, 1}, {4096, 32768},
                                    {.q_stride = q_width, .q_width = q_width, .out_rows = S, .heads = heads, .scale = scale,
                                     .window = window, .partition = 512, .max_partitions = parts},
                                    f);
        // Averages over thousands of keys are small: compare with an absolute bound near fp16's step there.
        EXPECT_TRUE(test::all_close(got, expect, 5e-4f, 5e-3f));
    }
}

TEST(SimtDecodeAttention, TooFewPartitionsIsLoudNotSilent) {
    PagedFixture f(2, 16, 16, {100}, 3);
    const auto q = test::round_to_half(test::random_floats(64, -1, 1, 4));
    DeviceArray<__half> dq(test::to_half(q)), dout(64);
    DeviceArray<int32_t> drows(std::vector<int32_t>{0}), dlens(std::vector<int32_t>{100});
    DeviceArray<float> work(decode_attention_workspace_floats(1, 4, 16, 2));
    DecodeAttention a;
    a.q = dq.get();
    a.q_stride = 64;
    a.out = dout.get();
    a.out_stride = 64;
    a.q_rows = drows.get();
    a.seq_lens = dlens.get();
    a.num_seqs = 1;
    a.num_heads = 4;
    a.partition_size = 32;  // needs 4 partitions
    a.max_partitions = 2;
    a.workspace = work.get();
    decode_attention(a, f.view(), nullptr);
    for (float x : test::from_half(dout.download())) EXPECT_TRUE(std::isnan(x));
}

struct PrefillSeq {
    int before, num_q;
};

// The per-sequence rows and the tile list prefill_attention takes for `seqs` packed one after another.
struct PrefillTiles {
    int num_tokens = 0;
    std::vector<int32_t> q_row, num_q, before, tile_seq, tile_q0;
};

PrefillTiles prefill_tiles(const std::vector<PrefillSeq>& seqs, int head_dim) {
    PrefillTiles t;
    const int tile_rows = prefill_tile_rows(head_dim);
    for (size_t s = 0; s < seqs.size(); ++s) {
        t.q_row.push_back(t.num_tokens);
        t.num_q.push_back(seqs[s].num_q);
        t.before.push_back(seqs[s].before);
        for (int q0 = 0; q0 < seqs[s].num_q; q0 += tile_rows) {
            t.tile_seq.push_back(int32_t(s));
            t.tile_q0.push_back(q0);
        }
        t.num_tokens += seqs[s].num_q;
    }
    return t;
}

// Runs prefill_attention under every schedule the harness knows and compares with `expect`.
void check_prefill(const std::vector<float>& q, int q_stride, int q_width, int heads, float scale, int window,
                   const PrefillTiles& t, const PagedFixture& f, const std::vector<float>& expect) {
    test::for_each_schedule([&](const char*) {
        DeviceArray<__half> dq(test::to_half(q)), dout(expect.size());
        DeviceArray<int32_t> dqrow(t.q_row), dnumq(t.num_q), dbefore(t.before), dts(t.tile_seq), dtq(t.tile_q0);
        dout.poison();
        PrefillAttention a;
        a.q = dq.get();
        a.q_stride = q_stride;
        a.out = dout.get();
        a.out_stride = q_width;
        a.num_heads = heads;
        a.scale = scale;
        a.window = window;
        a.seq_q_row = dqrow.get();
        a.seq_num_q = dnumq.get();
        a.seq_context_before = dbefore.get();
        a.tile_seq = dts.get();
        a.tile_q0 = dtq.get();
        a.num_tiles = int(t.tile_seq.size());
        prefill_attention(a, f.view(), nullptr);
        EXPECT_TRUE(test::all_close(test::from_half(dout.download()), expect, 2e-3f, 5e-3f));
    });
}

struct PrefillCase {
    int heads, kv_heads, head_dim, block_size;
    std::vector<PrefillSeq> seqs;
};

TEST(SimtPrefillAttention, CausalChunksOverCachedPrefixMatchCpuReference) {
    const PrefillCase cases[] = {
        {8, 4, 8, 16, {{0, 5}, {20, 33}, {7, 1}}},   // stories260K shape (CUDA cores): a fresh prompt, a second chunk, one token
        {8, 8, 16, 16, {{0, 40}, {16, 16}}},          // GQA 1, chunk starting on a block boundary
        {8, 2, 64, 8, {{3, 70}}},                      // GQA 4, tensor cores (64-row tiles)
        {16, 2, 128, 16, {{31, 9}, {0, 17}}},         // GQA 8
        {4, 1, 80, 16, {{5, 12}}},
        {4, 2, 96, 16, {{100, 130}, {0, 3}}},          // tensor cores: three 64-row tiles after a long prefix
        {4, 4, 256, 16, {{10, 20}}},                   // CUDA cores, 16-row tiles, opt-in shared memory
    };
    uint64_t seed = 50;
    for (const auto& c : cases) {
        SCOPED_TRACE("heads " + std::to_string(c.heads) + "/" + std::to_string(c.kv_heads) + " dim " + std::to_string(c.head_dim));
        std::vector<int> lens;
        for (const auto& s : c.seqs) lens.push_back(s.before + s.num_q);
        PagedFixture f(c.kv_heads, c.head_dim, c.block_size, lens, seed);
        seed += 10;
        const int q_width = c.heads * c.head_dim;
        const int q_stride = q_width + 2 * c.kv_heads * c.head_dim;
        const PrefillTiles t = prefill_tiles(c.seqs, c.head_dim);
        const int T = t.num_tokens;
        const std::vector<int32_t>& q_row = t.q_row;
        const auto q = test::round_to_half(test::random_floats(size_t(T) * q_stride, -1.5f, 1.5f, seed++));
        const float scale = 1.0f / std::sqrt(float(c.head_dim));
        std::vector<float> expect(size_t(T) * q_width);
        for (size_t s = 0; s < c.seqs.size(); ++s) {
            // cpu::paged_attention wants contiguous query rows: repack from the strided QKV rows.
            std::vector<float> qs(size_t(c.seqs[s].num_q) * q_width);
            for (int i = 0; i < c.seqs[s].num_q; ++i)
                std::copy_n(&q[size_t(q_row[s] + i) * q_stride], q_width, &qs[size_t(i) * q_width]);
            cpu::paged_attention(qs.data(), &expect[size_t(q_row[s]) * q_width], c.seqs[s].num_q, c.seqs[s].before, c.heads,
                                 f.layout, f.k.data(), f.v.data(), f.tables[s].data(), scale);
        }
        check_prefill(q, q_stride, q_width, c.heads, scale, 0, t, f, expect);
    }
}

struct WindowDecodeCase {
    int heads, kv_heads, head_dim, block_size, partition, window;
    std::vector<int> lens;  // 0: a padding row
};

TEST(SimtDecodeAttention, SlidingWindowReadsOnlyTheLastWindowKeys) {
    const WindowDecodeCase cases[] = {
        {8, 2, 64, 16, 48, 40, {130, 40, 41, 1, 0}},  // window inside, equal to and one short of the context
        {8, 8, 16, 16, 32, 1, {50, 3}},               // window 1: a token sees only itself
        {16, 2, 128, 16, 64, 100, {300, 99}},         // the window spans two partitions, unaligned start
        {4, 1, 80, 8, 512, 33, {70}},                 // one partition, window starting mid-block
    };
    uint64_t seed = 500;
    for (const auto& c : cases) {
        SCOPED_TRACE("heads " + std::to_string(c.heads) + "/" + std::to_string(c.kv_heads) + " dim " +
                     std::to_string(c.head_dim) + " window " + std::to_string(c.window));
        PagedFixture f(c.kv_heads, c.head_dim, c.block_size, c.lens, seed);
        seed += 10;
        const int S = int(c.lens.size());
        for (int s = 0; s < S; ++s) f.poison_before(size_t(s), std::max(0, c.lens[size_t(s)] - c.window));
        const int q_width = c.heads * c.head_dim;
        const auto q = test::round_to_half(test::random_floats(size_t(S) * q_width, -1.5f, 1.5f, seed++));
        const float scale = 1.0f / std::sqrt(float(c.head_dim));
        std::vector<float> expect(q.size(), 0.0f);
        int max_parts = 1;
        for (int s = 0; s < S; ++s) {
            const int len = c.lens[size_t(s)];
            max_parts = std::max(max_parts, decode_attention_partitions(len, c.partition, c.window));
            if (len > 0)
                test::windowed_paged_attention(&q[size_t(s) * q_width], &expect[size_t(s) * q_width], 1, len - 1, c.heads, f.layout,
                                               f.k.data(), f.v.data(), f.tables[size_t(s)].data(), scale, c.window);
        }
        EXPECT_LE(max_parts, (c.window + c.partition - 1) / c.partition + 1);
        std::vector<int32_t> rows(static_cast<size_t>(S));
        std::iota(rows.begin(), rows.end(), 0);
        check_decode(q, rows, c.lens,
                     {.q_stride = q_width, .q_width = q_width, .out_rows = S, .heads = c.heads, .scale = scale,
                      .window = c.window, .partition = c.partition, .max_partitions = max_parts},
                     f, expect);
    }
}

TEST(SimtDecodeAttention, PartitionCountFollowsTheWindow) {
    EXPECT_EQ(decode_attention_partitions(0, 512, 0), 0);
    EXPECT_EQ(decode_attention_partitions(4096, 512, 0), 8);
    EXPECT_EQ(decode_attention_partitions(4097, 512, 0), 9);
    EXPECT_EQ(decode_attention_partitions(32768, 512, 4096), 8);  // Mistral v0.1 at full context
    EXPECT_EQ(decode_attention_partitions(100, 512, 4096), 1);
    EXPECT_EQ(decode_attention_partitions(300, 64, 100), 2);
}

struct WindowPrefillCase {
    int heads, kv_heads, head_dim, block_size, window;
    std::vector<PrefillSeq> seqs;
};

TEST(SimtPrefillAttention, SlidingWindowReadsOnlyTheWindowOfEachRow) {
    const WindowPrefillCase cases[] = {
        {8, 4, 8, 16, 5, {{0, 40}, {30, 20}, {7, 1}}},  // CUDA cores, 32-row tiles; a chunk after the window
        {8, 2, 64, 8, 37, {{3, 140}, {100, 1}}},        // tensor cores: the window crosses 64-row tiles
        {4, 2, 96, 16, 1, {{10, 70}}},                  // window 1 on tensor cores
        {4, 4, 256, 16, 20, {{40, 20}}},                // CUDA cores, 16-row tiles
        {16, 2, 128, 16, 64, {{200, 65}, {0, 64}}},     // window = tile: rows of a tile start in different key tiles
    };
    uint64_t seed = 700;
    for (const auto& c : cases) {
        SCOPED_TRACE("heads " + std::to_string(c.heads) + "/" + std::to_string(c.kv_heads) + " dim " +
                     std::to_string(c.head_dim) + " window " + std::to_string(c.window));
        std::vector<int> lens;
        for (const auto& s : c.seqs) lens.push_back(s.before + s.num_q);
        PagedFixture f(c.kv_heads, c.head_dim, c.block_size, lens, seed);
        seed += 10;
        for (size_t s = 0; s < c.seqs.size(); ++s) f.poison_before(s, std::max(0, c.seqs[s].before - c.window + 1));
        const int q_width = c.heads * c.head_dim;
        const PrefillTiles t = prefill_tiles(c.seqs, c.head_dim);
        const int T = t.num_tokens;
        const std::vector<int32_t>& q_row = t.q_row;
        const auto q = test::round_to_half(test::random_floats(size_t(T) * q_width, -1.5f, 1.5f, seed++));
        const float scale = 1.0f / std::sqrt(float(c.head_dim));
        std::vector<float> expect(size_t(T) * q_width);
        for (size_t s = 0; s < c.seqs.size(); ++s)
            test::windowed_paged_attention(&q[size_t(q_row[s]) * q_width], &expect[size_t(q_row[s]) * q_width], c.seqs[s].num_q,
                                           c.seqs[s].before, c.heads, f.layout, f.k.data(), f.v.data(), f.tables[s].data(), scale,
                                           c.window);
        check_prefill(q, q_width, q_width, c.heads, scale, c.window, t, f, expect);
    }
}

TEST(SimtAttentionReference, WindowedReferenceWithoutWindowIsTheCpuReference) {
    // The window reference (tests/simt/support) stands in for engine/cpu/ops.h; without a window
    // both must agree, so the windowed cases above test against the same semantics.
    PagedFixture f(2, 32, 16, {45}, 900);
    const int heads = 4, n = 12, before = 33;
    const auto q = test::random_floats(size_t(n) * heads * 32, -1.0f, 1.0f, 901);
    std::vector<float> a(q.size()), b(q.size());
    cpu::paged_attention(q.data(), a.data(), n, before, heads, f.layout, f.k.data(), f.v.data(), f.tables[0].data(), 0.17f);
    test::windowed_paged_attention(q.data(), b.data(), n, before, heads, f.layout, f.k.data(), f.v.data(), f.tables[0].data(), 0.17f, 0);
    EXPECT_TRUE(test::all_close(b, a, 1e-6f, 1e-5f));
}

}  // namespace
}  // namespace folio::cuda
