#pragma once
// One step's work for a backend: query tokens of several sequences (prefill chunks and single decode
// tokens mixed), each with its block table. Built by the engine from the scheduler's output.
#include <cstdint>
#include <vector>

namespace folio {

struct SeqSlice {
    int64_t seq_id = 0;        // for diagnostics only
    int token_offset = 0;      // first row of this sequence in ForwardBatch::tokens
    int num_tokens = 0;        // query tokens this step: a prefill chunk, or 1 for a decode
    int context_before = 0;    // tokens of this sequence already in the KV cache; the first query
                               // token sits at position context_before
    int block_table_offset = 0;  // first entry of its block table in ForwardBatch::block_tables
    int num_blocks = 0;        // covers context_before + num_tokens positions
    bool want_logits = false;  // compute logits for its last query token
};

struct ForwardBatch {
    std::vector<int32_t> tokens;        // all query tokens, sequence after sequence
    std::vector<SeqSlice> seqs;
    // Concatenated physical block ids. Under a sliding window the entries of blocks wholly before
    // the window of a sequence's first query token are -1 (released): backends never read them.
    std::vector<int32_t> block_tables;

    int num_tokens() const { return int(tokens.size()); }
    int num_logit_rows() const {
        int n = 0;
        for (const auto& s : seqs) n += s.want_logits ? 1 : 0;
        return n;
    }
};

}  // namespace folio
