// folio-cli generate: one prompt, streamed to stdout, or one JSON object with --json.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "app/cli/engine_setup.h"
#include "engine/core/error.h"

namespace folio::cli {
namespace {

std::string usage() {
    return std::string(
               "usage: folio-cli generate --model DIR|dummy:NAME --prompt TEXT [options]\n"
               "\n"
               "Generates one reply to TEXT, streamed to stdout (or one JSON object with --json).\n"
               "\n"
               "  --prompt TEXT            the user's message (with --raw: the exact text; \"\" starts from BOS alone)\n"
               "  --raw                    no chat template: TEXT is encoded as it is, after BOS\n"
               "  --system TEXT            a system message (not with --raw)\n"
               "  --max-tokens N           at most N new tokens (default 256)\n"
               "  --stop STR               end the reply before STR\n"
               "  --ignore-eos             go on past the end-of-sequence token\n"
               "  --json                   {prompt_ids, ids, text, finish_reason, timings, backend} on stdout\n"
               "\n") +
           model_options_usage() + "\n" + remote_options_usage() + "\n" + sampling_options_usage();
}

int run(int argc, char** argv, int first) {
    auto options = model_options();
    options.merge(sampling_options());
    options.merge(remote_options());
    options.insert({"prompt", "max-tokens", "stop", "system"});
    auto flags = model_flags();
    flags.insert({"raw", "json", "ignore-eos"});
    Args args(argc, argv, first, options, flags);
    args.expect_no_positional();
    const std::string prompt = args.require("prompt");
    const int max_tokens = args.get_int("max-tokens", 256);
    if (max_tokens <= 0) throw UsageError("--max-tokens must be positive");
    if (args.has("raw") && args.has("system"))
        throw UsageError("--system needs the chat template; it cannot be combined with --raw");
    if (!is_remote(args)) backend_from_args(args);  // a bad --backend is reported before the model loads
    const bool json_out = args.has("json");

    OpenedEngine opened = open_engine(args, !json_out);
    EngineClient& engine = *opened.client;
    Request req;
    if (args.has("raw")) {
        req.prompt_text = prompt;  // "" is a prompt too: BOS alone, as transformers and llama.cpp do
    } else {
        if (auto sys = args.get("system")) req.messages.push_back({"system", *sys});
        req.messages.push_back({"user", prompt});
    }
    req.sampling = opened.sampling;
    req.stop.max_tokens = max_tokens;
    req.stop.ignore_eos = args.has("ignore-eos");
    if (auto stop = args.get("stop")) req.stop.stop_strings.push_back(*stop);

    const auto t0 = std::chrono::steady_clock::now();
    auto events = std::make_shared<EventQueue>();
    const RequestId id = engine.submit(req, EventQueue::sink_of(events));
    std::vector<int32_t> ids;
    std::string text;
    for (;;) {
        for (const Event& ev : events->wait(std::chrono::milliseconds(200))) {
            if (ev.id != id) continue;
            if (ev.kind == Event::Kind::Token) {
                if (ev.token >= 0) ids.push_back(ev.token);  // a remote engine sends text only
                text += ev.text;
                if (!json_out && !ev.text.empty()) {
                    std::fwrite(ev.text.data(), 1, ev.text.size(), stdout);
                    std::fflush(stdout);
                }
                continue;
            }
            if (ev.kind == Event::Kind::Error) {
                // The text so far stands: already on stdout, or in the JSON beside the error.
                if (!json_out) throw Error(ev.message);
                nlohmann::ordered_json j;
                j["text"] = text;
                j["error"] = ev.message;
                std::puts(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
                return 1;
            }
            const double total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (json_out) {
                nlohmann::ordered_json j;
                j["prompt_ids"] = ev.prompt_ids;
                j["ids"] = ids;
                j["text"] = text;
                j["finish_reason"] = finish_reason_name(ev.reason);
                j["timings"] = {{"prompt_tokens", ev.timings.prompt_tokens},
                                {"generated_tokens", ev.timings.generated_tokens},
                                {"ttft_ms", ev.timings.ttft_ms},
                                {"prefill_tok_s", ev.timings.prefill_tok_s},
                                {"decode_tok_s", ev.timings.decode_tok_s},
                                {"total_ms", total_ms}};
                j["backend"] = engine.describe();
                std::puts(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
            } else {
                std::fprintf(stderr, "\n[%s; %d prompt + %d generated tokens; prefill %.1f tok/s, decode %.1f tok/s]\n",
                             finish_reason_name(ev.reason), ev.timings.prompt_tokens, ev.timings.generated_tokens,
                             ev.timings.prefill_tok_s, ev.timings.decode_tok_s);
            }
            return 0;
        }
    }
}

}  // namespace

const Command generate_command = {"generate", "one reply to a prompt, streamed (or --json)", usage, run};

}  // namespace folio::cli
