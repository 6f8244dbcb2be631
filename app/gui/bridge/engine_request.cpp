#include "app/gui/bridge/engine_request.h"

namespace folio::app {

folio::Request toEngineRequest(const GenerationRequest& r) {
    folio::Request req;
    req.messages = r.messages;
    // Every template sees it; those that do not read it (most) render the same.
    req.chat_template_kwargs["enable_thinking"] = r.enableThinking;
    req.continue_final_message = r.continueFinal;
    const SamplingSettings& s = r.sampling;
    req.sampling.temperature = float(s.temperature);
    req.sampling.top_p = float(s.topP);
    req.sampling.top_k = s.topK;
    req.sampling.min_p = float(s.minP);
    req.sampling.repetition_penalty = float(s.repetitionPenalty);
    if (s.seed >= 0) req.sampling.seed = uint64_t(s.seed);  // else: a new random seed per reply
    req.stop.max_tokens = s.maxTokens;
    req.tag = r.tag.toStdString();
    req.n = r.n;
    return req;
}

}  // namespace folio::app
