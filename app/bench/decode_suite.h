#pragma once
// `folio-bench --suite decode`: the engine-core speed figures side by side in one run, alternating
// measurements round after round and reporting medians, because a shared machine is noisy:
//   bytes of weights read per token, this machine's read bandwidth (sum-reduction over 1 GiB with
//   every core) and copy bandwidth, decode tok/s at 1/4/16 streams (and the weight-read rate and
//   fraction of the read bandwidth each implies), prefill tok/s on a 512-token prompt.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/frontdoor/sync_engine.h"

namespace folio::bench {

using SyncEnginePtr = std::unique_ptr<SyncEngine>;

struct DecodeSuiteOptions {
    int rounds = 3;
    std::vector<int> streams{1, 4, 16};
    int prompt_len = 32;      // prompt of each decode stream
    int decode_tokens = 32;   // tokens each stream generates
    int prefill_len = 512;
    size_t bandwidth_bytes = size_t(1) << 30;
    int threads = 0;          // for the bandwidth test; 0: all hardware threads (as the backend)
    uint64_t seed = 1;
};

// `make_core(num_kv_blocks, max_seqs, max_batched_tokens)` builds a fresh engine (prefix caching off).
nlohmann::json run_decode_suite(const Model& model,
                                const std::function<SyncEnginePtr(int64_t, int, int)>& make_core,
                                const DecodeSuiteOptions& options);
std::string format_decode_suite(const nlohmann::json& result);

}  // namespace folio::bench
