#pragma once
// A chat's generation request as the engine takes it: the messages as they are, the sampling
// settings as SamplingParams and a max_tokens stop, the thinking switch as the template variable
// enable_thinking. Apart from the worker so the chat tests can render what the engine would.
#include "app/gui/bridge/bridge_types.h"
#include "engine/frontdoor/request.h"

namespace folio::app {

folio::Request toEngineRequest(const GenerationRequest& r);

}  // namespace folio::app
