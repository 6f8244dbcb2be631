#include "engine/sampling/finish_reason.h"

namespace folio {

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
