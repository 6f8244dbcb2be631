#pragma once
// One HTTP request through libcurl, nothing Hub-specific: no redirects are followed (the Hub client
// decides where the token may go), the body of a 2xx answer streams into a sink, anything else is
// kept (capped) for the error message. libcurl stays behind this header.
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/error.h"

namespace folio::hub {

struct HttpRequest {
    std::string url;
    std::vector<std::string> headers;  // "Name: value"
    bool head = false;                 // HEAD instead of GET
    uint64_t range_start = 0;          // > 0: "Range: bytes=N-"
    bool compressed = false;           // accept gzip/deflate (JSON answers; never file bodies)
    long connect_timeout_s = 10;
    // The transfer is given up (a TransportError, so retried) when fewer than low_speed_bytes per
    // second arrive for low_speed_time_s seconds: a stalled connection, not a slow one.
    long low_speed_time_s = 30;
    long low_speed_bytes = 1;
};

struct HttpResponse {
    long status = 0;
    std::map<std::string, std::string> headers;  // names in lower case
    std::string body;                            // of a non-2xx answer, or of any answer without a sink
    std::string redirect_url;                    // a 3xx's Location, made absolute
    bool stopped_by_sink = false;                // the sink returned false

    // The header's value, or "" when absent.
    std::string header(const std::string& lower_case_name) const;
};

// Receives the body of a 2xx answer. begin() comes once, after the headers and before the first
// byte (also for an empty body); returning false from either stops the transfer
// (HttpResponse::stopped_by_sink).
class BodySink {
public:
    virtual ~BodySink() = default;
    virtual bool begin(const HttpResponse& head) = 0;
    virtual bool write(const char* data, size_t size) = 0;
};

// The connection could not be made or broke (reset, timeout, stall, truncated body): worth retrying.
class TransportError : public Error {
public:
    using Error::Error;
};

// The cancel flag was raised.
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

// Sends one request. `sink` may be null (the body then goes to HttpResponse::body, up to 256 MiB).
// `cancel`, when not null, is polled during the transfer. Throws TransportError or Cancelled;
// any HTTP status is returned, not thrown.
HttpResponse http_send(const HttpRequest& request, BodySink* sink, const std::atomic<bool>* cancel);

// "scheme://host:port" of an absolute URL (default ports filled in, host in lower case); "" when it
// does not parse.
std::string url_origin(const std::string& url);

}  // namespace folio::hub
