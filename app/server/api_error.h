#pragma once
// An error as an OpenAI-compatible server reports it: an HTTP status and the body
// {"error": {"message", "type", "param", "code"}}, which the official clients turn into their
// exception types (BadRequestError, AuthenticationError, NotFoundError, ...).
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace folio::server {

struct ApiError : std::runtime_error {
    int status = 400;
    std::string type = "invalid_request_error";
    std::string param;  // the request field at fault ("messages[1].role"), empty when none
    std::string code;   // a machine-readable code ("context_length_exceeded"), empty when none

    ApiError(int status_, std::string message, std::string param_ = {}, std::string code_ = {}, std::string type_ = {});
};

// 400 invalid_request_error naming `param`.
ApiError bad_field(const std::string& param, const std::string& message);

// The body for `e`; "param" and "code" are null when empty, as OpenAI sends them.
nlohmann::ordered_json error_body(const ApiError& e);

}  // namespace folio::server
