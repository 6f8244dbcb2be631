#include "engine/frontdoor/request.h"

#include <utility>

namespace folio {

Request fixed_length_greedy_request(std::vector<int32_t> prompt_ids, int max_tokens) {
    Request r;
    r.prompt_ids = std::move(prompt_ids);
    r.sampling.temperature = 0;
    r.stop.max_tokens = max_tokens;
    r.stop.ignore_eos = true;
    return r;
}

}  // namespace folio
