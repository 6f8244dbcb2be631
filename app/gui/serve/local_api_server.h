#pragma once
// The app's "Serve on localhost": folio-server's HTTP routes (app/server) over the engine the app has
// loaded. Lives on the engine worker's thread, next to the engine it borrows: the worker attaches
// each engine it builds and detaches it before destroying it, so API requests and GUI chats share one
// continuous batch and one KV pool, and an unload or reload turns the API to 503 ("Loading model",
// as /health says) until the next engine is attached. Plain C++: the worker reports its state to the
// GUI.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace folio {
class EngineClient;
struct Model;
}  // namespace folio

namespace folio::server {
class HttpServer;
}  // namespace folio::server

namespace folio::app {

class LocalApiServer {
public:
    LocalApiServer();
    ~LocalApiServer();  // stop()
    LocalApiServer(const LocalApiServer&) = delete;
    LocalApiServer& operator=(const LocalApiServer&) = delete;

    // Binds host:port and serves on a thread of its own (503 until attach). Throws folio::Error with
    // a message for the user when the address cannot be bound (a port in use). port 0: any free port.
    // Returns the port.
    int start(const std::string& host, int port, const std::string& apiKey, const std::string& modelName);
    // Detaches (the API requests in flight end) and closes the port at once. The connections still
    // open (a client's kept-alive one waits up to its idle timeout) close on a thread of their own,
    // joined by the next stop or the destructor, so the engine worker is not held up meanwhile.
    // No effect when not running.
    void stop();
    bool running() const { return http_ != nullptr; }

    // A local engine (its model: the prompts are checked against it); it stays alive until detach()
    // (or stop()) has returned. API requests go to their own sinks on it.
    void attach(std::shared_ptr<const Model> model, EngineClient& engine);
    // The API requests in flight end with an error that says `reason` ("the model was switched").
    void detach(const std::string& reason);
    // API requests being answered now.
    int requestsInFlight() const;

private:
    void joinClosed();

    std::unique_ptr<server::HttpServer> http_;
    std::thread listener_;  // runs http_'s listening loop
    std::vector<std::thread> closing_;  // each waits for a stopped server's connections, then frees it
};

}  // namespace folio::app
