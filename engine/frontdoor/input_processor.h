#pragma once
// The front door's way in: a Request (chat messages, raw text or ids) becomes the core's CoreRequest
// (chat template rendered, text tokenized, settings checked, the model's end ids attached), plus what
// the output processor needs to turn the core's tokens back into text. It runs when a request is
// submitted: on the threaded Engine's front-door thread (SyncEngine: in add()), never in a step, so
// a long history takes its time without holding up any running stream.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/frontdoor/output_processor.h"
#include "engine/frontdoor/prompt_builder.h"
#include "engine/frontdoor/request.h"
#include "engine/runtime/core_request.h"

namespace folio {

struct Model;

struct ProcessedRequest {
    CoreRequest core;       // for EngineCore::add
    OutputRequest output;   // for OutputProcessor::add
};

class InputProcessor {
public:
    // `model` must outlive the processor.
    explicit InputProcessor(const Model& model);

    // Throws folio::Error with a message for the user: no prompt or more than one kind given, an id
    // outside the vocabulary, a template that cannot be rendered, a final message that cannot be
    // continued, a sampling setting out of range, max_tokens below 1, an empty stop string. (The core
    // checks what depends on its pool: a prompt too long for the context or the KV pool.) The
    // template's warnings are logged once per processor (one model load).
    ProcessedRequest process(const Request& request);

    // Every distinct chat-template warning logged so far, oldest first.
    const std::vector<std::string>& warnings() const { return prompts_.warnings(); }

private:
    PromptBuilder prompts_;
    std::vector<int32_t> eos_ids_;
};

}  // namespace folio
