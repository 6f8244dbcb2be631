#include "app/cli/reply_engine.h"

#include "app/cli/command_line.h"

#include "app/cli/engine_setup.h"
#include "engine/backends/backend_factory.h"
#include "engine/core/error.h"
#include "engine/frontdoor/engine.h"
#include "engine/remote/remote_engine.h"

namespace folio::cli {

namespace {

class LocalReplyEngine : public ReplyEngine {
public:
    LocalReplyEngine(std::shared_ptr<const Model> model, const EngineOptions& o)
        : model_(model), engine_(model, make_backend(*model, backend_options_for(o)), o) {}
    RequestId submit(Request r) override { return engine_.submit(std::move(r), EventQueue::sink_of(events_)); }
    void cancel(RequestId id) override { engine_.cancel(id); }
    std::vector<Event> wait_events(std::chrono::milliseconds t) override { return events_->wait(t); }
    std::string backend() const override { return engine_.stats().backend; }
    std::string model_name() const override { return model_->name + " (" + model_->quantization_name() + ")"; }

private:
    std::shared_ptr<const Model> model_;
    std::shared_ptr<EventQueue> events_ = std::make_shared<EventQueue>();
    Engine engine_;
};

class RemoteReplyEngine : public ReplyEngine {
public:
    explicit RemoteReplyEngine(remote::RemoteOptions o) : engine_(std::move(o)) {}
    RequestId submit(Request r) override { return engine_.submit(std::move(r), EventQueue::sink_of(events_)); }
    void cancel(RequestId id) override { engine_.cancel(id); }
    std::vector<Event> wait_events(std::chrono::milliseconds t) override { return events_->wait(t); }
    std::string backend() const override { return engine_.describe(); }
    std::string model_name() const override { return engine_.model(); }

private:
    std::shared_ptr<EventQueue> events_ = std::make_shared<EventQueue>();
    remote::RemoteEngine engine_;
};

}  // namespace

std::set<std::string> remote_options() { return {"endpoint", "api-key", "remote-model"}; }

const char* remote_options_usage() {
    return "remote (instead of --model):\n"
           "  --backend remote --endpoint URL [--api-key KEY] [--remote-model NAME]\n"
           "                           an OpenAI-compatible server (folio-server, vLLM, llama.cpp) runs the model\n";
}

bool is_remote(const Args& args) { return args.get_or("backend", "") == "remote"; }

std::unique_ptr<ReplyEngine> make_reply_engine(const Args& args, bool show_progress) {
    if (!is_remote(args)) {
        for (const char* flag : {"endpoint", "api-key", "remote-model"})
            if (args.has(flag)) throw UsageError(std::string("--") + flag + " is for --backend remote");
        auto model = load_model_from_args(args, show_progress);
        auto e = std::make_unique<LocalReplyEngine>(model, engine_options_from_args(args));
        e->sampling = sampling_from_args(args, *model);
        return e;
    }
    for (const char* flag : {"model", "threads", "tokenizer", "kv-cache-mb", "weights-seed", "cpu-activations"})
        if (args.has(flag))
            throw UsageError(std::string("--") + flag + " sets up a local model; with --backend remote the server runs the model (name it with --remote-model)");
    remote::RemoteOptions o;
    o.endpoint = args.require("endpoint");
    o.api_key = args.get_or("api-key", "");
    o.model = args.get_or("remote-model", "");
    auto e = std::make_unique<RemoteReplyEngine>(std::move(o));
    e->sampling = sampling_from_args(args, GenerationDefaults{});  // no local generation_config.json: the flags, else greedy
    return e;
}

}  // namespace folio::cli
