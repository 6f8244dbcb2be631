#pragma once
// CUDA graphs of whole decode steps (inputs upload, forward, sampling, ids download), one per
// (padded batch size, block-table width) bucket, captured the second time a bucket is needed (the
// first run is eager, so every kernel module is loaded before capture) and replayed after that.
#include <cstdint>
#include <functional>
#include <map>
#include <utility>

#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

class DecodeGraphs {
public:
    DecodeGraphs() = default;
    ~DecodeGraphs() { clear(); }
    DecodeGraphs(const DecodeGraphs&) = delete;
    DecodeGraphs& operator=(const DecodeGraphs&) = delete;

    // Decode batch sizes are padded up to one of 1, 2, 4, 8, 16, 24, 32, 40, ... (steps of 8 to 64,
    // then of 32) and block-table widths to a power of two of at least 16 blocks, both capped.
    static int padded_batch(int seqs, int max_seqs);
    static int padded_width(int blocks, int max_blocks);

    using Key = std::pair<int, int>;  // (padded batch, width)
    bool has(Key key) const { return graphs_.count(key) != 0; }
    // Records what `enqueue` puts on `stream` (nothing runs) and keeps the instantiated graph.
    void capture(Key key, cudaStream_t stream, const std::function<void()>& enqueue);
    void launch(Key key, cudaStream_t stream) const;
    void clear();
    size_t size() const { return graphs_.size(); }

private:
    std::map<Key, cudaGraphExec_t> graphs_;
};

}  // namespace folio::cuda
