#pragma once
// What the scheduler knows of one request: its tokens and how far its KV is computed. The engine
// keeps everything else (sampling, text, timings) beside it, keyed by the same id.
#include <cstdint>
#include <vector>

#include "engine/kv/kv_cache_manager.h"

namespace folio {

struct SchedSequence {
    SeqId id = 0;
    std::vector<int32_t> tokens;  // the prompt, then every generated token
    int num_prompt_tokens = 0;    // the original prompt
    int num_computed = 0;         // tokens whose KV is written (0 while waiting)
    // Tokens when last admitted: [0, admitted_len) is prefill work (after a preemption that includes
    // the tokens generated before it), later tokens are decodes.
    int admitted_len = 0;
    int priority = 0;
    uint64_t arrival = 0;    // order of submission; preemption keeps it, so a resumed request is not overtaken
    uint64_t admission = 0;  // order of the latest admission; the newest is preempted first
    bool running = false;
    int preemptions = 0;

    int num_generated() const { return int(tokens.size()) - num_prompt_tokens; }
    int num_uncomputed() const { return int(tokens.size()) - num_computed; }
};

}  // namespace folio
