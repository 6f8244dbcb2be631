#pragma once
// folio-server's HTTP side (cpp-httplib): the OpenAI-compatible routes, authentication and the
// bounds on what a client may send. The engine is handed over once loaded; until then /health and
// the API answer 503.
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "app/server/metrics.h"
#include "app/server/server_state.h"

namespace httplib {
class Server;
}

namespace folio::server {

struct ServerOptions {
    std::string host = "127.0.0.1";
    int port = 8080;                 // 0: any free port (printed on stdout)
    std::string api_key;             // empty: no authentication
    std::string served_model_name;   // empty: the model folder's name
    size_t max_body_bytes = 4u << 20;
    int max_connections = 256;       // connections served at once (one thread each); more wait to be accepted
    int read_timeout_s = 30;         // a client that sends nothing for this long is dropped
    int write_timeout_s = 30;        // a client that reads nothing for this long is dropped (its request cancelled)
    int keep_alive_timeout_s = 5;    // an idle kept-alive connection is closed after this
};

class HttpServer {
public:
    explicit HttpServer(ServerOptions options);
    ~HttpServer();

    // Binds the address; returns the port (throws folio::Error when it cannot).
    int bind();
    // Serves until stop(); returns false when the listening loop failed.
    bool listen();
    // Whether listen()'s loop runs (stop() has no effect before).
    bool is_running() const;
    void stop();

    // The model is ready: /health turns 200 and the API answers.
    void set_loaded(std::shared_ptr<const Model> model, std::unique_ptr<EngineClient> engine);
    // The desktop app's engine, lent (API requests and the app's own share the engine's batch and KV
    // pool; each request's events go to its own sink). It must stay alive until detach().
    void attach(std::shared_ptr<const Model> model, EngineClient& engine);
    // Back to 503 ("Loading model"): every API request in flight ends with an error that says
    // `reason` (a stream with an error event, a whole answer with a 503), and this returns once
    // no handler uses the engine any more (bounded by the write timeout of a client that stopped
    // reading), so the lender may then destroy it.
    void detach(const std::string& reason = "the model was unloaded");
    // Completion requests being answered now (0 while no model is attached).
    int requests_in_flight() const;
    const std::string& model_name() const { return model_name_; }
    void set_model_name(std::string name) { model_name_ = std::move(name); }

private:
    void routes();
    std::shared_ptr<LoadedModel> loaded() const;

    ServerOptions options_;
    std::string model_name_;
    std::unique_ptr<httplib::Server> http_;
    ServerMetrics metrics_;
    mutable std::mutex mutex_;
    std::shared_ptr<LoadedModel> loaded_;
};

}  // namespace folio::server
