#pragma once
// What generate and chat drive: the in-process engine (a loaded model on a local backend) or a
// remote one (--backend remote: an OpenAI-compatible server, engine/remote). Both take Requests and
// give Events; this hides which one it is.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli_args.h"
#include "engine/frontdoor/request.h"

namespace folio::cli {

class ReplyEngine {
public:
    virtual ~ReplyEngine() = default;
    virtual RequestId submit(Request request) = 0;
    virtual void cancel(RequestId id) = 0;
    virtual std::vector<Event> wait_events(std::chrono::milliseconds timeout) = 0;
    virtual std::string backend() const = 0;  // "cpu", "cuda", or "remote MODEL at URL" (never the key)
    virtual std::string model_name() const = 0;
    // The sampling the flags ask for, with the local model's generation_config.json as fallback
    // (a remote engine: the flags, else greedy).
    SamplingParams sampling;
};

// The remote engine's options: --endpoint URL [--api-key KEY] [--remote-model NAME].
std::set<std::string> remote_options();
// Their lines of a usage text.
const char* remote_options_usage();
bool is_remote(const Args& args);
// Loads the model (local) or checks the endpoint (remote); throws folio::Error for bad flags, an
// unloadable model or an unreachable server.
std::unique_ptr<ReplyEngine> make_reply_engine(const Args& args, bool show_progress);

}  // namespace folio::cli
