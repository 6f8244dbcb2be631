#pragma once
// A request's prompt as token ids: ids as given, raw text encoded with BOS per tokenizer_config, or
// chat messages rendered with the model's chat template (generation prompt added) and encoded.
#include <cstdint>
#include <vector>

#include "engine/runtime/request.h"

namespace folio {

struct Model;

// Throws folio::Error with a message for the user: no prompt or more than one kind given, an id
// outside the vocabulary, a template that cannot be rendered.
std::vector<int32_t> build_prompt_ids(const Model& model, const Request& request);

}  // namespace folio
