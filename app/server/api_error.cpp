#include "app/server/api_error.h"

namespace folio::server {

namespace {

std::string type_for(int status) {
    switch (status) {
        case 401: return "authentication_error";
        case 404: return "not_found_error";
        case 413: return "invalid_request_error";
        case 429: return "rate_limit_error";
        case 503: return "unavailable_error";
        default: return status >= 500 ? "server_error" : "invalid_request_error";
    }
}

}  // namespace

ApiError::ApiError(int status_, std::string message, std::string param_, std::string code_, std::string type_)
    : std::runtime_error(std::move(message)),
      status(status_),
      type(type_.empty() ? type_for(status_) : std::move(type_)),
      param(std::move(param_)),
      code(std::move(code_)) {}

ApiError bad_field(const std::string& param, const std::string& message) { return ApiError(400, message, param); }

nlohmann::ordered_json error_body(const ApiError& e) {
    nlohmann::ordered_json err = {{"message", e.what()}, {"type", e.type}, {"param", nullptr}, {"code", nullptr}};
    if (!e.param.empty()) err["param"] = e.param;
    if (!e.code.empty()) err["code"] = e.code;
    return {{"error", err}};
}

}  // namespace folio::server
