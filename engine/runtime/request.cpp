#include "engine/runtime/request.h"

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

const char* finish_reason_name(FinishReason r) {
    switch (r) {
        case FinishReason::Eos: return "stop";
        case FinishReason::StopString: return "stop_string";
        case FinishReason::Length: return "length";
        case FinishReason::ContextFull: return "context";
        case FinishReason::Cancelled: return "cancelled";
        case FinishReason::Error: return "error";
    }
    return "unknown";
}

}  // namespace folio
