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
// It is an EngineClient: each request's events go to the sink it was submitted with. It cannot fork
// (an OpenAI server has no such call): fork answers with an Error event. Its stats are what this
// client has seen (its requests and the tokens they brought), not the server's.
// A connection that breaks mid-reply, or a stream that ends without a finish reason, ends the
// request with an Error event saying so; the text already delivered stands. The API key goes only
// into the Authorization header: no message, log or error ever contains it.
#include <memory>
#include <string>
#include <vector>

#include "engine/frontdoor/engine_client.h"
#include "engine/frontdoor/request.h"

namespace folio::remote {

struct RemoteOptions {
    std::string endpoint;  // base URL: "http://host:port" or ".../v1" (the /v1 is added when missing)
    std::string api_key;   // "" : no Authorization header
    std::string model;     // "" : the first model the server lists (GET /v1/models at construction)
    long connect_timeout_s = 10;
    long stall_timeout_s = 120;  // no byte for this long: the request ends with an Error
};

class RemoteEngine final : public EngineClient {
public:
    // Checks the endpoint (a URL with http:// or https://); with no model given asks the server for
    // its models, so an unreachable server, a wrong key or an empty list throw folio::Error here.
    // With a model named, the list is asked for only for the model's context length (a server that
    // does not answer then fails each request instead).
    explicit RemoteEngine(RemoteOptions options);
    ~RemoteEngine() override;  // cancels what is running and waits for its threads
    RemoteEngine(const RemoteEngine&) = delete;
    RemoteEngine& operator=(const RemoteEngine&) = delete;

    RequestId submit(Request request, EventSink sink) override;
    void cancel(RequestId id) override;
    // An Error event through `sink`: a server cannot continue a reply under another sampling.
    RequestId fork(RequestId parent, const SamplingParams& sampling, EventSink sink) override;
    // remote = true, backend and architecture "remote", quantization "as served", device the base
    // URL, name the model's id, context_length the server's max_model_len (0 when it gives none).
    const EngineModelInfo& model_info() const override;
    // What this client has seen: requests running, and the prompt and generated tokens of those that
    // ended (the server's usage, else text chunks); no steps, KV or memory figures.
    EngineStats stats() const override;
    std::string describe() const override;  // "remote <model> at <base url>" (never the key)

    const std::string& model() const;    // the model name sent with each request
    const std::string& base_url() const;  // ".../v1"

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// One entry of GET /v1/models.
struct ServedModel {
    std::string id;
    int max_model_len = 0;  // 0: the server does not say
};

// GET /v1/models, in the server's order. Throws folio::Error (unreachable, a wrong key, not a model
// list) with what to fix; the key never appears in it.
std::vector<ServedModel> list_served_models(const RemoteOptions& options);
// Their ids.
std::vector<std::string> list_models(const RemoteOptions& options);

// "http://h:p", "http://h:p/", "http://h:p/v1/" -> "http://h:p/v1". Throws folio::Error for a URL
// that is not http(s).
std::string normalize_base_url(const std::string& endpoint);

}  // namespace folio::remote
