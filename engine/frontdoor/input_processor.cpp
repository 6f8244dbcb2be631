#include "engine/frontdoor/input_processor.h"

#include <string>

#include "engine/core/error.h"
#include "engine/model/model.h"

namespace folio {

InputProcessor::InputProcessor(const Model& model) : prompts_(model) {
    for (int id : model.stop_token_ids()) eos_ids_.push_back(int32_t(id));
}

ProcessedRequest InputProcessor::process(const Request& request) {
    validate(request.sampling);
    validate(request.stop);
    if (request.n < 1 || request.n > kMaxReplies)
        throw Error("n (replies) must be in [1, " + std::to_string(kMaxReplies) + "], got " + std::to_string(request.n));
    ProcessedRequest p;
    p.core.prompt_ids = prompts_.build(request);
    p.core.sampling = request.sampling;
    p.core.max_tokens = request.stop.max_tokens;
    p.core.eos_token_ids = eos_ids_;
    p.core.stop_token_ids.assign(request.stop.stop_token_ids.begin(), request.stop.stop_token_ids.end());
    p.core.ignore_eos = request.stop.ignore_eos;
    p.core.priority = request.priority;
    p.core.tag = request.tag;
    p.core.n = request.n;
    p.output.stop_strings = request.stop.stop_strings;
    p.output.continues_text = request.continue_final_message;
    p.output.prompt_ids = p.core.prompt_ids;
    return p;
}

}  // namespace folio
