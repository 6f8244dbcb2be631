#pragma once
// The knobs of the iteration-level scheduler, filled by the engine from EngineOptions and the model.
#include <cstdint>

namespace folio {

struct SchedulerConfig {
    int max_num_seqs = 64;               // sequences in one step at most
    int max_num_batched_tokens = 2048;   // query tokens in one step at most (decodes cost 1 each)
    int max_model_len = 2048;            // the model's context length
    int64_t num_blocks = 0;              // KV pool size
    int block_size = 16;
    bool enable_prefix_caching = true;
    // The model's sliding attention window in tokens (0: none): blocks that leave it are released,
    // so a sequence holds about W / block_size + 2 blocks however long it runs.
    int sliding_window = 0;
    // Static batching (benchmark baseline only): admit `static_batch_size` requests together, run them
    // until the last one ends, admit nothing else meanwhile.
    bool static_batching = false;
    int static_batch_size = 16;
};

}  // namespace folio
