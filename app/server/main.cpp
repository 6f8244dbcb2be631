// folio-server: the loaded model behind an OpenAI-compatible HTTP API, for the editors, scripts and
// agents that already speak it. Command-line convention as every Folio program: --help/--version exit
// 0, bad usage exits 2 with the usage, other failures (the model, the address) exit 1.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <pthread.h>
#include <string>
#include <thread>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/cli/cli_args.h"
#include "app/cli/engine_setup.h"
#include "app/server/http_server.h"
#include "engine/client/make_engine.h"
#include "engine/core/error.h"

namespace {

const char* kUsage =
    "usage: folio-server --model DIR|dummy:NAME [OPTIONS]\n"
    "\n"
    "Serves the model through an OpenAI-compatible API: /v1/models, /v1/chat/completions, /v1/completions,\n"
    "/tokenize, /detokenize, /health, /metrics.\n"
    "\n"
    "  --host ADDR              address to listen on (default 127.0.0.1; another address needs --api-key\n"
    "                           or --allow-unauthenticated)\n"
    "  --port N                 port (default 8080; 0: any free port, printed on stdout)\n"
    "  --api-key KEY            clients must send 'Authorization: Bearer KEY' (every route but /health)\n"
    "  --allow-unauthenticated  serve a non-loopback address without a key (logs a warning)\n"
    "  --served-model-name NAME the model's id in the API (default: the folder's name)\n"
    "  --backend auto|cpu|cuda  where the model runs (auto: CUDA when a GPU is present)\n"
    "  --max-num-seqs N         requests in one batch at most (default 64)\n"
    "  --kv-cache-dtype auto    the KV cache's element type (only auto, the model's, in this build)\n"
    "  --kv-cache-mb N          KV pool size (CPU; default: a quarter of free memory, at most 8 GiB)\n"
    "  --threads N              CPU threads (default: all)\n"
    "  --cpu-activations int8|exact  CPU matmuls: plain int8 activations (default, faster) or exact\n"
    "  --tokenizer PATH         a tokenizer for a dummy: model\n"
    "  --max-body-bytes N       largest request body (default 4194304); larger: 413\n"
    "  --max-connections N      connections served at once (default 256); more wait to be accepted\n"
    "  --timeout S              drop a client that sends or reads nothing for S seconds (default 30)\n"
    "  --help, --version\n";

struct UsageError : folio::Error {
    using Error::Error;
};

bool is_loopback(const std::string& host) {
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

struct Parsed {
    folio::server::ServerOptions server;
    folio::EngineOptions engine;
    std::unique_ptr<folio::cli::Args> args;
};

Parsed parse(int argc, char** argv) {
    auto options = folio::cli::model_options();
    options.insert({"host", "port", "api-key", "served-model-name", "max-num-seqs", "kv-cache-dtype",
                    "max-body-bytes", "max-connections", "timeout"});
    Parsed p;
    p.args = std::make_unique<folio::cli::Args>(argc, argv, 1, options, std::set<std::string>{"allow-unauthenticated"});
    const auto& a = *p.args;
    if (!a.positional().empty()) throw UsageError("unexpected argument '" + a.positional()[0] + "'");
    a.require("model");
    auto& s = p.server;
    s.host = a.get_or("host", s.host);
    s.port = a.get_int("port", s.port);
    if (s.port < 0 || s.port > 65535) throw UsageError("--port must be in 0..65535");
    s.api_key = a.get_or("api-key", "");
    if (a.has("api-key") && s.api_key.empty()) throw UsageError("--api-key is empty");
    s.served_model_name = a.get_or("served-model-name", "");
    const int body = a.get_int("max-body-bytes", int(s.max_body_bytes));
    if (body < 1024) throw UsageError("--max-body-bytes must be at least 1024");
    s.max_body_bytes = size_t(body);
    s.max_connections = a.get_int("max-connections", s.max_connections);
    if (s.max_connections < 1 || s.max_connections > 4096) throw UsageError("--max-connections must be in 1..4096");
    const int timeout = a.get_int("timeout", s.read_timeout_s);
    if (timeout < 1) throw UsageError("--timeout must be at least 1 second");
    s.read_timeout_s = s.write_timeout_s = timeout;
    if (!is_loopback(s.host) && s.api_key.empty() && !a.has("allow-unauthenticated"))
        throw UsageError("--host " + s.host + " makes the model reachable from other machines: give --api-key KEY, or " +
                         "--allow-unauthenticated to serve it to anyone who can reach this address");

    const std::string backend = a.get_or("backend", "auto");
    if (backend == "remote") throw UsageError("--backend remote is not implemented yet; use auto, cpu or cuda");
    p.engine = folio::cli::engine_options_from_args(a);
    p.engine.max_num_seqs = a.get_int("max-num-seqs", p.engine.max_num_seqs);
    if (p.engine.max_num_seqs < 1) throw UsageError("--max-num-seqs must be at least 1");
    const std::string dtype = a.get_or("kv-cache-dtype", "auto");
    if (dtype != "auto")
        throw UsageError("--kv-cache-dtype " + dtype + " is not available in this build: the engine keeps the KV cache in the model's type (auto)");
    return p;
}

int serve(Parsed& p) {
    const auto& args = *p.args;
    std::string name = p.server.served_model_name;
    if (name.empty()) {
        std::string spec = args.require("model");
        while (spec.size() > 1 && spec.back() == '/') spec.pop_back();
        name = spec.substr(spec.find_last_of('/') + 1);
    }
    folio::server::HttpServer server(p.server);
    server.set_model_name(name);
    const int port = server.bind();
    if (!is_loopback(p.server.host) && p.server.api_key.empty())
        spdlog::warn("serving {} on {}:{} WITHOUT an API key: anyone who can reach this address can use it", name, p.server.host, port);
    std::printf("folio-server: listening on http://%s:%d (model %s loading)\n", p.server.host.c_str(), port, name.c_str());
    std::fflush(stdout);

    // SIGINT/SIGTERM end the server: waited for on a thread of their own (blocked everywhere else).
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    // httplib's stop() does nothing before its loop runs, so a stop asked for early (a signal, a
    // model that fails to load at once) is repeated until listen() has returned.
    std::atomic<bool> listen_done{false};
    auto stop_server = [&] {
        while (!listen_done) {
            server.stop();
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    };
    std::thread signals([&] {
        int sig = 0;
        sigwait(&stop_signals, &sig);
        stop_server();
    });

    std::string load_error;
    std::thread loader([&] {
        try {
            std::shared_ptr<const folio::Model> model = folio::cli::load_model_from_args(args, false);
            // The model is loaded here: the routes check prompts against it and tokenize with it.
            server.set_loaded(model, folio::make_local_engine(model, p.engine));
            std::printf("folio-server: ready (model %s, context %d tokens)\n", name.c_str(), model->context_length());
            std::fflush(stdout);
        } catch (const std::exception& e) {
            load_error = e.what();
            stop_server();
        }
    });
    const bool ok = server.listen();
    listen_done = true;
    loader.join();
    pthread_kill(signals.native_handle(), SIGTERM);  // wake the signal thread if no signal came
    signals.join();
    if (!load_error.empty()) throw folio::Error(load_error);
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::signal(SIGPIPE, SIG_IGN);  // a client gone mid-write is an error return, not the end of the server
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);  // before any thread starts: every thread inherits it

    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "--version") {
            std::printf("folio-server %s\n", FOLIO_VERSION);
            return 0;
        }
    }
    spdlog::set_default_logger(spdlog::stderr_color_mt("folio"));
    Parsed p;
    try {
        p = parse(argc, argv);
    } catch (const folio::Error& e) {  // every refusal while reading the command line is bad usage
        std::fprintf(stderr, "folio-server: %s\n\n%s", e.what(), kUsage);
        return 2;
    }
    try {
        return serve(p);
    } catch (const folio::Error& e) {
        std::fprintf(stderr, "folio-server: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "folio-server: internal error: %s\n", e.what());
        return 1;
    }
}
