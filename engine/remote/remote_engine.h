#pragma once
// An engine that runs nowhere here: each request is sent, streamed, to an OpenAI-compatible server
// (folio-server, vLLM, llama.cpp's server, ...) and its chunks come back as the same Events the local
// Engine gives (engine/frontdoor/engine.h), so a front end can drive either. One thread and one
// libcurl connection per request; submit, cancel and polling never wait for the network.
//
// What differs from the local engine: Token events carry text only (token = -1: the API sends no
// ids); a reply ended by a stop string finishes as Eos (the API calls both "stop"); timings are the
// client's (TTFT from submit to the first text chunk) with the server's token counts (usage). A
// request for n replies (Request::n) is one API request with n: reply i is id + i as locally, each
// counting its own text chunks as its tokens (the usage sums them all); a server that answers fewer
// choices ends the missing replies with an Error saying it may not support n.
// A connection that breaks mid-reply, or a stream that ends without a finish reason, ends the
// request with an Error event saying so; the text already delivered stands. The API key goes only
// into the Authorization header: no message, log or error ever contains it.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/frontdoor/request.h"

namespace folio::remote {

struct RemoteOptions {
    std::string endpoint;  // base URL: "http://host:port" or ".../v1" (the /v1 is added when missing)
    std::string api_key;   // "" : no Authorization header
    std::string model;     // "" : the first model the server lists (GET /v1/models at construction)
    long connect_timeout_s = 10;
    long stall_timeout_s = 120;  // no byte for this long: the request ends with an Error
};

class RemoteEngine {
public:
    // Checks the endpoint (a URL with http:// or https://); with no model given asks the server for
    // its models, so an unreachable server, a wrong key or an empty list throw folio::Error here.
    explicit RemoteEngine(RemoteOptions options);
    ~RemoteEngine();  // cancels what is running and waits for its threads
    RemoteEngine(const RemoteEngine&) = delete;
    RemoteEngine& operator=(const RemoteEngine&) = delete;

    RequestId submit(Request request);
    void cancel(RequestId id);
    std::vector<Event> poll_events();
    std::vector<Event> wait_events(std::chrono::milliseconds timeout);
    void set_event_callback(std::function<void(const Event&)> callback);

    const std::string& model() const;    // the model name sent with each request
    const std::string& base_url() const;  // ".../v1"
    std::string describe() const;        // "remote <model> at <base url>" (never the key)

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The ids of GET /v1/models, in the server's order. Throws folio::Error (unreachable, a wrong key, not
// a model list) with what to fix; the key never appears in it.
std::vector<std::string> list_models(const RemoteOptions& options);

// "http://h:p", "http://h:p/", "http://h:p/v1/" -> "http://h:p/v1". Throws folio::Error for a URL
// that is not http(s).
std::string normalize_base_url(const std::string& endpoint);

}  // namespace folio::remote
