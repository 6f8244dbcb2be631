#include "app/server/http_server.h"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <thread>

#include "app/server/completion_route.h"
#include "app/server/openai_response.h"
#include "app/server/process_memory.h"
#include "engine/core/error.h"

namespace folio::server {

namespace {

using json = nlohmann::ordered_json;

void send_error(httplib::Response& res, const ApiError& e) {
    res.status = e.status;
    res.set_content(dump(error_body(e)), "application/json");
}

// Constant-time comparison: the key must not leak through response timing.
bool same_key(const std::string& a, const std::string& b) {
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
    return diff == 0;
}

}  // namespace

HttpServer::HttpServer(ServerOptions options) : options_(std::move(options)), http_(std::make_unique<httplib::Server>()) {
    const size_t threads = size_t(std::max(1, options_.max_connections));
    http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    http_->set_payload_max_length(options_.max_body_bytes);
    http_->set_read_timeout(options_.read_timeout_s, 0);
    http_->set_write_timeout(options_.write_timeout_s, 0);
    http_->set_keep_alive_timeout(options_.keep_alive_timeout_s);
    http_->set_tcp_nodelay(true);  // stream chunks leave at once
    routes();
}

HttpServer::~HttpServer() {
    stop();
    detach();
}

int HttpServer::bind() {
    const int port = options_.port == 0 ? http_->bind_to_any_port(options_.host) : (http_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
    if (port < 0)
        throw Error("cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                    " (address in use, or not an address of this machine); choose another --port or --host");
    return port;
}

bool HttpServer::listen() { return http_->listen_after_bind(); }

bool HttpServer::is_running() const { return http_->is_running(); }

void HttpServer::stop() {
    if (http_->is_running()) http_->stop();
}

void HttpServer::set_loaded(std::shared_ptr<const Model> model, std::unique_ptr<EngineClient> engine) {
    auto loaded = std::make_shared<LoadedModel>(std::move(model), std::move(engine), metrics_);
    std::lock_guard lock(mutex_);
    loaded_ = std::move(loaded);
}

void HttpServer::attach(std::shared_ptr<const Model> model, EngineClient& engine) {
    auto loaded = std::make_shared<LoadedModel>(std::move(model), engine, metrics_);
    std::lock_guard lock(mutex_);
    loaded_ = std::move(loaded);
}

void HttpServer::detach(const std::string& reason) {
    std::weak_ptr<LoadedModel> last;
    {
        std::lock_guard lock(mutex_);
        // Before any request is cancelled: a handler reads it once its Cancelled event has come.
        if (loaded_) loaded_->withdrawn_because = reason;
        last = loaded_;
        loaded_.reset();
    }
    // A handler may still be between taking the model and submitting: cancel again until every
    // handler has let go. The last one gone takes the requests' metrics recording with it (a lent
    // engine's late events no longer reach this server's metrics).
    while (auto lm = last.lock()) {
        lm->requests.cancel_all();
        lm.reset();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

int HttpServer::requests_in_flight() const {
    const auto lm = loaded();
    return lm ? lm->requests_in_flight.load() : 0;
}

std::shared_ptr<LoadedModel> HttpServer::loaded() const {
    std::lock_guard lock(mutex_);
    return loaded_;
}

void HttpServer::routes() {
    // Authentication first: every route but /health needs the key when one is set.
    http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (options_.api_key.empty() || req.path == "/health") return httplib::Server::HandlerResponse::Unhandled;
        const std::string auth = req.get_header_value("Authorization");
        const std::string prefix = "Bearer ";
        if (auth.rfind(prefix, 0) == 0 && same_key(auth.substr(prefix.size()), options_.api_key))
            return httplib::Server::HandlerResponse::Unhandled;
        metrics_.count_http_error(401);
        send_error(res, ApiError(401,
                                 auth.empty() ? "no API key: send the header 'Authorization: Bearer <key>' with the server's --api-key"
                                              : "incorrect API key in the Authorization header",
                                 {}, "invalid_api_key"));
        return httplib::Server::HandlerResponse::Handled;
    });
    // httplib's own refusals (unknown route, body over the limit, a request it cannot parse) get
    // OpenAI's error shape too; a route's error keeps its body.
    http_->set_error_handler(httplib::Server::HandlerWithResponse([this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        metrics_.count_http_error(res.status);
        std::string msg;
        if (res.status == 404)
            msg = "no route " + req.method + " " + req.path + " (this server has /v1/models, /v1/chat/completions, /v1/completions, "
                  "/tokenize, /detokenize, /health, /metrics)";
        else if (res.status == 413)
            msg = "the request body is larger than " + std::to_string(options_.max_body_bytes) + " bytes (the server's --max-body-bytes)";
        else if (res.status == 414)
            msg = "the request line is too long";
        else
            msg = "the HTTP request could not be read (" + std::to_string(res.status) + ")";
        send_error(res, ApiError(res.status, msg));
        return httplib::Server::HandlerResponse::Handled;
    }));

    // Every route's body runs in `guard`: an ApiError becomes its status and body, anything else a 500.
    auto guard = [this](auto&& body) {
        return [this, body](const httplib::Request& req, httplib::Response& res) {
            try {
                body(req, res);
            } catch (const ApiError& e) {
                metrics_.count_http_error(e.status);
                send_error(res, e);
            } catch (const std::exception& e) {
                spdlog::error("{} {}: {}", req.method, req.path, e.what());
                metrics_.count_http_error(500);
                send_error(res, ApiError(500, std::string("internal error: ") + e.what()));
            }
        };
    };
    auto need_model = [this] {
        auto lm = loaded();
        if (!lm) throw ApiError(503, "Loading model", {}, {}, "unavailable_error");
        return lm;
    };

    http_->Get("/health", guard([need_model](const httplib::Request&, httplib::Response& res) {
        need_model();
        res.set_content("{\"status\":\"ok\"}", "application/json");
    }));

    http_->Get("/v1/models", guard([this, need_model](const httplib::Request&, httplib::Response& res) {
        auto lm = need_model();
        json model = {{"id", model_name_},
                      {"object", "model"},
                      {"created", int64_t(std::time(nullptr))},
                      {"owned_by", "folio"},
                      {"max_model_len", lm->model->context_length()}};
        res.set_content(dump({{"object", "list"}, {"data", json::array({model})}}), "application/json");
    }));

    http_->Post("/v1/chat/completions", guard([this, need_model](const httplib::Request& req, httplib::Response& res) {
        handle_completion(need_model(), model_name_, Endpoint::ChatCompletions, req, res);
    }));
    http_->Post("/v1/completions", guard([this, need_model](const httplib::Request& req, httplib::Response& res) {
        handle_completion(need_model(), model_name_, Endpoint::Completions, req, res);
    }));

    // vLLM's /tokenize: {"prompt": text, "add_special_tokens": bool} or {"messages": [...]}.
    http_->Post("/tokenize", guard([need_model](const httplib::Request& req, httplib::Response& res) {
        auto lm = need_model();
        const json body = parse_json_object(req.body);
        std::vector<int32_t> ids;
        const bool chat = body.contains("messages");
        if (!chat && !(body.contains("prompt") && body["prompt"].is_string()))
            throw bad_field("prompt", "give prompt (a string) or messages (an array of {\"role\", \"content\"})");
        bool special = true;
        if (auto it = body.find("add_special_tokens"); it != body.end() && !it->is_null()) {
            if (!it->is_boolean()) throw bad_field("add_special_tokens", "add_special_tokens must be true or false");
            special = it->get<bool>();
        }
        if (!chat && !special) {
            for (int t : lm->model->tokenizer->encode(body["prompt"].get<std::string>())) ids.push_back(t);
        } else {
            // The same path as a completion request: template, BOS as the tokenizer config says.
            json as_request = chat ? json{{"messages", body["messages"]}} : json{{"prompt", body["prompt"]}};
            ApiRequest api = parse_api_request(as_request.dump(), chat ? Endpoint::ChatCompletions : Endpoint::Completions, {});
            try {
                std::lock_guard lock(lm->input_mutex);
                ids = lm->input.process(api.request).core.prompt_ids;
            } catch (const Error& e) {
                throw bad_field(chat ? "messages" : "prompt", e.what());
            }
        }
        res.set_content(dump({{"count", ids.size()}, {"max_model_len", lm->model->context_length()}, {"tokens", ids}}), "application/json");
    }));

    http_->Post("/detokenize", guard([need_model](const httplib::Request& req, httplib::Response& res) {
        auto lm = need_model();
        const json body = parse_json_object(req.body);
        auto it = body.find("tokens");
        if (it == body.end() || !it->is_array()) throw bad_field("tokens", "tokens is required: an array of token ids");
        std::vector<int> ids;
        const int vocab = lm->model->config.vocab_size;
        for (size_t i = 0; i < it->size(); ++i) {
            const json& t = (*it)[i];
            if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= vocab)
                throw bad_field("tokens", "tokens[" + std::to_string(i) + "] must be a token id in [0, " + std::to_string(vocab) + "), got " + t.dump());
            ids.push_back(int(t.get<int64_t>()));
        }
        res.set_content(dump({{"prompt", lm->model->tokenizer->decode(ids)}}), "application/json");
    }));

    http_->Get("/metrics", guard([this, need_model](const httplib::Request&, httplib::Response& res) {
        auto lm = need_model();
        std::string text = metrics_.render(lm->engine->stats(), model_name_);
        render_process_memory(text, read_process_memory());
        res.set_content(text, "text/plain; version=0.0.4");
    }));
}

}  // namespace folio::server
