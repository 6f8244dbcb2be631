// The HTTP server's request bodies (app/server): POST /v1/chat/completions and /v1/completions. The
// first input byte picks the endpoint, the rest is the body as it came off the socket. The contract
// the server relies on: parse_api_request either returns a Request the engine accepts (sampling and
// stop settings pass validate()) or throws ApiError, which the server sends as a 4xx; anything else
// (another exception, a crash, a sanitizer report) is a bug. Header and framing limits are
// cpp-httplib's and are covered by tests/server/server_http_test.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "app/server/openai_request.h"
#include "engine/core/error.h"
#include "engine/sampling/sampling_params.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const auto endpoint = (data[0] & 1) ? folio::server::Endpoint::Completions : folio::server::Endpoint::ChatCompletions;
    const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
    folio::GenerationDefaults defaults;  // none: OpenAI's own defaults apply
    try {
        const folio::server::ApiRequest r = folio::server::parse_api_request(body, endpoint, defaults);
        // Accepted: what reaches the engine must be settings it takes (validate throws folio::Error).
        folio::validate(r.request.sampling);
        folio::validate(r.request.stop);
        if (r.n < 1 || r.n > folio::server::kMaxChoices) __builtin_trap();
        if (r.max_tokens && *r.max_tokens < 1) __builtin_trap();
    } catch (const folio::server::ApiError& e) {
        if (e.status < 400 || e.status > 499) __builtin_trap();  // a body is the client's fault, never a 5xx
    }
    return 0;
}
