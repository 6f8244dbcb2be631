#pragma once
// POST /v1/chat/completions and /v1/completions: the request checked, submitted to the engine and
// answered whole or as a server-sent event stream.
#include <httplib.h>

#include "app/server/metrics.h"
#include "app/server/openai_request.h"
#include "app/server/server_state.h"

namespace folio::server {

// Answers `req` into `res`. Errors before the response starts are thrown as ApiError (the caller
// writes them); an error after a stream started goes out as a `data: {"error": ...}` event. A
// streaming client that goes away cancels its request.
void handle_completion(const std::shared_ptr<LoadedModel>& loaded, const std::string& model_name, Endpoint endpoint,
                       const httplib::Request& req, httplib::Response& res);

}  // namespace folio::server
