#include "app/gui/serve/local_api_server.h"

#include <chrono>
#include <spdlog/spdlog.h>

#include "app/server/http_server.h"
#include "engine/core/error.h"
#include "engine/model/model.h"

namespace folio::app {

LocalApiServer::LocalApiServer() = default;
LocalApiServer::~LocalApiServer() {
    stop();
    joinClosed();
}

void LocalApiServer::joinClosed() {
    for (std::thread& t : closing_) t.join();
    closing_.clear();
}

int LocalApiServer::start(const std::string& host, int port, const std::string& apiKey, const std::string& modelName) {
    stop();
    server::ServerOptions options;
    options.host = host;
    options.port = port;
    options.api_key = apiKey;
    // A stopped server's kept-alive connections wait this long before they close: at quit the app
    // waits for them (see stop()).
    options.keep_alive_timeout_s = 2;
    auto http = std::make_unique<server::HttpServer>(options);
    http->set_model_name(modelName);
    int bound = -1;
    try {
        bound = http->bind();
    } catch (const Error&) {
        // The CLI's message names its flags; the app's names its own field.
        throw Error("cannot serve on " + host + ":" + std::to_string(port) +
                    ": the port is in use (another program, or another Folio, listens on it). Choose another port.");
    }
    server::HttpServer* h = http.get();
    auto ended = std::make_shared<std::atomic<bool>>(false);
    listener_ = std::thread([h, ended] {
        if (!h->listen()) spdlog::error("the local API server stopped listening unexpectedly");
        *ended = true;
    });
    // httplib's stop() does nothing before its loop runs: stop() below may only count on it once the
    // loop is up.
    while (!h->is_running() && !*ended) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    http_ = std::move(http);
    // Never the key: only whether one is needed.
    spdlog::info("serving the OpenAI API on http://{}:{}/v1 ({})", host, bound, apiKey.empty() ? "no API key" : "API key required");
    return bound;
}

void LocalApiServer::stop() {
    if (!http_) return;
    http_->detach("the local API server was switched off in the Folio app");
    http_->stop();  // the listening socket closes now: the port is free for the next start
    closing_.emplace_back([http = std::move(http_), listener = std::move(listener_)]() mutable {
        listener.join();
        http.reset();
    });
    spdlog::info("stopped serving the OpenAI API");
}

void LocalApiServer::attach(std::shared_ptr<const Model> model, EngineClient& engine) {
    if (!http_) return;
    http_->set_model_name(model->name);
    http_->attach(std::move(model), engine);
}

void LocalApiServer::detach(const std::string& reason) {
    if (http_) http_->detach(reason);
}

int LocalApiServer::requestsInFlight() const { return http_ ? http_->requests_in_flight() : 0; }

}  // namespace folio::app
