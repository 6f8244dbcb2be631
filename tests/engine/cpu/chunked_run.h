#pragma once
// Drives a backend directly, without a scheduler: every sequence's tokens go in chunks, all sequences
// in one batch per step, so a test can compare logits across batchings and chunkings bit for bit.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/backend/backend.h"

namespace folio::test {

struct PagedSeq {
    std::vector<int32_t> tokens;
    std::vector<int32_t> blocks;  // the sequence's block table (big enough for all its tokens)
};

// Feeds each sequence in chunks of `chunk` tokens and returns, per sequence, the logits of the last
// token of each of its chunks, concatenated.
inline std::vector<std::vector<float>> run_chunked(Backend& b, int vocab, const std::vector<PagedSeq>& seqs, int chunk) {
    std::vector<std::vector<float>> out(seqs.size());
    std::vector<int> done(seqs.size(), 0);
    std::vector<float> logits;
    for (;;) {
        ForwardBatch batch;
        std::vector<size_t> which;
        for (size_t i = 0; i < seqs.size(); ++i) {
            const int n = std::min<int>(chunk, int(seqs[i].tokens.size()) - done[i]);
            if (n <= 0) continue;
            SeqSlice s;
            s.seq_id = int64_t(i);
            s.token_offset = batch.num_tokens();
            s.num_tokens = n;
            s.context_before = done[i];
            s.block_table_offset = int(batch.block_tables.size());
            s.num_blocks = int(seqs[i].blocks.size());
            s.want_logits = true;
            batch.tokens.insert(batch.tokens.end(), seqs[i].tokens.begin() + done[i], seqs[i].tokens.begin() + done[i] + n);
            batch.block_tables.insert(batch.block_tables.end(), seqs[i].blocks.begin(), seqs[i].blocks.end());
            batch.seqs.push_back(s);
            which.push_back(i);
            done[i] += n;
        }
        if (which.empty()) break;
        b.forward(batch, logits);
        for (size_t r = 0; r < which.size(); ++r)
            out[which[r]].insert(out[which[r]].end(), logits.begin() + long(r * size_t(vocab)), logits.begin() + long((r + 1) * size_t(vocab)));
    }
    return out;
}

}  // namespace folio::test
